// A company's single sign-on settings, seen and set by a SysAdmin only. The client secret goes in
// and never comes out: answers say only whether one is stored.
import { ROLES, type TSsoSettings, type TUpdateSsoSettings } from '@portal/contract';
import type { AuditTrail } from '../audit/index.js';
import type { Actor } from '../auth/index.js';
import type { CompaniesRepository } from '../companies/index.js';
import type { CompanySsoRow } from '../db/schema.js';
import { forbidden, notFound, unprocessable } from '../errors/app-error.js';
import type { OidcClients } from './oidc-client.js';
import type { SecretBox } from './secret-box.js';
import { CALLBACK_PATH, startPath } from './sso-flow.service.js';
import type { SsoSettingsRepository } from './sso-settings.repository.js';

export class SsoSettingsAdministration {
  constructor(
    private readonly companies: CompaniesRepository,
    private readonly audit: AuditTrail,
    private readonly settings: SsoSettingsRepository,
    private readonly clients: OidcClients,
    private readonly box: SecretBox,
  ) {}

  async get(actor: Actor, companyId: number, baseUrl: string): Promise<TSsoSettings> {
    requireSysAdmin(actor);
    await this.company(companyId);
    return present(companyId, await this.settings.find(companyId), baseUrl);
  }

  async put(actor: Actor, companyId: number, body: TUpdateSsoSettings, baseUrl: string): Promise<TSsoSettings> {
    requireSysAdmin(actor);
    await this.company(companyId);
    const stored = await this.settings.find(companyId);
    const secret = body.client_secret ?? this.storedSecret(stored, companyId);
    if (body.enabled) {
      if (!body.issuer) throw unprocessable('Enter the issuer address to turn single sign-on on');
      if (!body.client_id) throw unprocessable('Enter the client id to turn single sign-on on');
      if (!secret) throw unprocessable('Enter the client secret the provider gave for this client');
      // Refused now rather than when the first user tries: the issuer must answer its discovery document.
      await this.clients.configuration({ issuer: body.issuer, clientId: body.client_id, clientSecret: secret }).catch(() => {
        throw unprocessable(
          `The portal could not read the OpenID configuration at ${body.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration. Check the issuer address and that the portal can reach it.`,
        );
      });
    }
    const saved = await this.settings.save(companyId, {
      enabled: body.enabled,
      issuer: body.issuer,
      client_id: body.client_id,
      client_secret_enc: body.client_secret === undefined ? undefined : this.box.seal(body.client_secret, companyId),
      password_login_allowed: body.password_login_allowed,
      auto_create_users: body.auto_create_users,
    });
    await this.audit.record({
      action: 'company.changed',
      companyId,
      object: { type: 'company', id: companyId },
      // Key names avoid the words the trail drops as secrets; the secret itself is never here.
      details: {
        sso_enabled: body.enabled,
        sso_issuer: body.issuer,
        sso_client_id: body.client_id,
        sso_client_credential_replaced: body.client_secret !== undefined,
        sso_local_sign_in_allowed: body.password_login_allowed,
        sso_creates_users: body.auto_create_users,
      },
    });
    return present(companyId, saved, baseUrl);
  }

  /** undefined when none is stored, or when it no longer opens (the key changed): it must be entered again. */
  private storedSecret(row: CompanySsoRow | undefined, companyId: number): string | undefined {
    if (!row?.client_secret_enc) return undefined;
    try {
      return this.box.open(row.client_secret_enc, companyId);
    } catch {
      return undefined;
    }
  }

  private async company(companyId: number) {
    const company = await this.companies.findById(companyId, 'all');
    if (!company) throw notFound('Company not found');
    return company;
  }
}

function requireSysAdmin(actor: Actor): void {
  if (actor.role !== ROLES.SysAdmin) throw forbidden('Only a SysAdmin may set up single sign-on');
}

function present(companyId: number, row: CompanySsoRow | undefined, baseUrl: string): TSsoSettings {
  return {
    company_id: companyId,
    enabled: Boolean(row?.enabled),
    issuer: row?.issuer || null,
    client_id: row?.client_id || null,
    has_secret: Boolean(row?.client_secret_enc),
    password_login_allowed: row ? Boolean(row.password_login_allowed) : true,
    auto_create_users: Boolean(row?.auto_create_users),
    redirect_uri: `${baseUrl}${CALLBACK_PATH}`,
    login_url: `${baseUrl}${startPath(companyId)}`,
  };
}
