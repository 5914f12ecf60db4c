// Single sign-on with OpenID Connect per company (issue 15).
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import { LoginThrottleRepository } from '../auth/index.js';
import { AddressLimit } from './address-limit.js';
import { OidcClients } from './oidc-client.js';
import { SecretBox } from './secret-box.js';
import { SsoFlow, type PortalDeps } from './sso-flow.service.js';
import { SsoLoginsRepository } from './sso-logins.repository.js';
import { SsoUsersRepository } from './sso-users.repository.js';
import type { SsoSettingsRepository } from './sso-settings.repository.js';
import { ssoRoutes } from './sso.routes.js';
import { SsoSettingsAdministration } from './sso-settings.service.js';

export { passwordLoginPolicy } from './password-login-policy.js';
export { KEY_FILE_NAME, SecretBox } from './secret-box.js';
export { SsoSettingsRepository } from './sso-settings.repository.js';
export type { NewSsoUser } from './sso-users.js';

export function ssoPlugin(portal: PortalDeps & { settings: SsoSettingsRepository }, config: Config, log: FastifyInstance['log']) {
  const clients = new OidcClients();
  const box = new SecretBox({ key: config.sso.secretKey, dataDir: config.dataDir });
  const flow = new SsoFlow({
    portal,
    settings: portal.settings,
    logins: new SsoLoginsRepository(portal.db),
    companyUsers: new SsoUsersRepository(portal.db),
    clients,
    box,
    limit: new AddressLimit(new LoginThrottleRepository(portal.db), config.sso),
    // The reason only: an error object may carry the provider's whole answer.
    warn: (error, message) => log.warn({ reason: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }, message),
  });
  const settings = new SsoSettingsAdministration(portal.companies, portal.audit, portal.settings, clients, box);
  return ssoRoutes(flow, settings, config.publicUrl);
}
