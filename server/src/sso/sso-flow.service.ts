// Signing in through a company's identity provider: the look-up behind 'Sign in with <company>',
// the redirect to the provider, its answer, and the one-time code the web app trades for the
// portal's own session (the same as after a password). Whatever fails, the browser lands back on
// the login screen with a reason the web app words; the provider's own messages stay in the log.
import type { TLoginResponse, TSsoDiscoverResponse, TSsoError } from '@portal/contract';
import type { AuditActor, AuditTrail } from '../audit/index.js';
import { hashToken, looksLikeToken, newToken, type AuthService } from '../auth/index.js';
import type { CompaniesRepository } from '../companies/index.js';
import { nowIso, type Db } from '../db/database.js';
import type { CompanySsoRow, UserRow } from '../db/schema.js';
import { AppError } from '../errors/app-error.js';
import type { UsersRepository } from '../users/index.js';
import type { Metrics } from '../metrics/index.js';
import type { AddressLimit } from './address-limit.js';
import { loadOidc, ProviderRefusal, type Identity, type OidcClients, type ProviderSettings } from './oidc-client.js';
import type { SecretBox } from './secret-box.js';
import { newUserFrom, type NewSsoUser } from './sso-users.js';
import type { SsoUsersRepository } from './sso-users.repository.js';
import type { SsoLoginsRepository } from './sso-logins.repository.js';
import type { SsoSettingsRepository } from './sso-settings.repository.js';

/** From the redirect to the provider to its answer: time to type a password, not to leave a tab open for a day. */
const FLIGHT_MS = 10 * 60_000;
/** From the provider's answer to the web app's exchange: one page load. */
const HANDOFF_MS = 2 * 60_000;
export const EXPIRED_HANDOFF_MESSAGE = 'This sign-in has expired or was already used. Please sign in again.';

/** What signing in through a provider uses of the rest of the portal. */
export interface PortalDeps {
  db: Db;
  users: UsersRepository;
  companies: CompaniesRepository;
  audit: AuditTrail;
  auth: AuthService;
  /** Creates a user as an administrator would (audited), for a first sign-in with auto_create_users. */
  createUser: (input: NewSsoUser) => Promise<UserRow>;
  /** Counts failed sign-ins for Prometheus (a callback answers a redirect, not a 401 the HTTP hook could count). */
  metrics: Pick<Metrics, 'ssoFailed'>;
}

export interface SsoFlowDeps {
  portal: PortalDeps;
  settings: SsoSettingsRepository;
  logins: SsoLoginsRepository;
  companyUsers: SsoUsersRepository;
  clients: OidcClients;
  box: SecretBox;
  limit: AddressLimit;
  warn: (error: unknown, message: string) => void;
}

/** Where the browser goes next: a provider's page, or the login screen with a one-time code or a reason. */
export type Landing = { to: string };

export const startPath = (companyId: number) => `/api/v1/sso/${companyId}/start`;
export const CALLBACK_PATH = '/api/v1/sso/callback';
const toLogin = (reason: TSsoError): Landing => ({ to: `/#sso_error=${reason}` });

export class SsoFlow {
  constructor(private readonly deps: SsoFlowDeps) {}

  /** The same answer for an unknown username as for a user whose company has no single sign-on. */
  async discover(username: string, address: string): Promise<TSsoDiscoverResponse> {
    await this.deps.limit.admit('sso-discover', address);
    const user = await this.deps.portal.users.findByUsername(username.trim());
    // The settings are read for an unknown username too (of no company), so the two cost the same.
    const sso = await this.usable(user?.company_id ?? 0);
    if (!user || !sso) return { data: { sso: null } };
    const company = await this.deps.portal.companies.findById(user.company_id, 'all');
    if (!company) return { data: { sso: null } };
    return {
      data: { sso: { company_name: company.companyname, start_url: startPath(company.id), password_login_allowed: Boolean(sso.row.password_login_allowed) } },
    };
  }

  /** Sends the browser to the company's provider; `state` is also what the caller puts in the browser's cookie. */
  async start(companyId: number, address: string, baseUrl: string): Promise<Landing & { state?: string }> {
    await this.deps.limit.admit('sso-start', address);
    const sso = await this.usable(companyId);
    if (!sso) return toLogin('not_set_up');
    const now = Date.now();
    await this.deps.logins.purgeExpired(nowIso(new Date(now)));
    const oidc = await loadOidc();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const verifier = oidc.randomPKCECodeVerifier();
    const redirectUri = `${baseUrl}${CALLBACK_PATH}`;
    let to: string;
    try {
      to = await this.deps.clients.authorizationUrl(sso.provider, { redirectUri, state, nonce, verifier });
    } catch (error) {
      this.deps.warn(error, `Single sign-on of company ${companyId}: the provider's configuration could not be read`);
      return toLogin('unavailable');
    }
    await this.deps.logins.start({
      state_hash: hashToken(state),
      company_id: companyId,
      code_verifier: verifier,
      nonce,
      redirect_uri: redirectUri,
      expires_at: nowIso(new Date(now + FLIGHT_MS)),
    });
    return { to, state };
  }

  /**
   * The provider's answer. `search` is the query string as received; `browserState` the state
   * this browser was given at the start (its cookie): a state begun in another browser is refused,
   * so nobody can sign a victim into the attacker's account with a forwarded link.
   */
  async callback(search: URLSearchParams, browserState: string | undefined): Promise<Landing> {
    const state = search.get('state') ?? '';
    const row = state ? await this.deps.logins.takeStarted(hashToken(state), nowIso()) : undefined;
    if (!row) {
      // Unknown, used or stale: nothing names a company, so it is counted but not audited.
      this.deps.portal.metrics.ssoFailed('expired_state');
      return toLogin('expired');
    }
    const company = { id: row.company_id };
    const fail = async (reason: TSsoError, cause: string, extra: Record<string, string> = {}, actor?: AuditActor) => {
      await this.deps.logins.remove(row.id);
      this.deps.portal.metrics.ssoFailed(cause);
      await this.deps.portal.audit.record({
        action: 'login.failure',
        companyId: company.id,
        actor: actor ?? { id: null, name: null, companyId: company.id },
        details: { method: 'sso', reason: cause, ...extra },
      });
      return toLogin(reason);
    };
    if (browserState !== state) return fail('expired', 'other_browser');
    const sso = await this.usable(row.company_id);
    if (!sso) return fail('not_set_up', 'sso_turned_off');

    let identity: Identity;
    try {
      const callbackUrl = new URL(row.redirect_uri);
      callbackUrl.search = search.toString();
      identity = await this.deps.clients.exchange(sso.provider, callbackUrl, { state, nonce: row.nonce, verifier: row.code_verifier });
    } catch (error) {
      if (error instanceof ProviderRefusal) return fail('cancelled', 'provider_refused', { provider_error: error.message.slice(0, 64) });
      this.deps.warn(error, `Single sign-on of company ${row.company_id}: the provider's answer was refused`);
      return fail('failed', 'invalid_answer');
    }

    let user = await this.deps.companyUsers.findInCompany(row.company_id, identity);
    if (!user && sso.row.auto_create_users) user = await this.createFromIdentity(identity, row.company_id);
    if (!user) return fail('unknown_user', 'unknown_user', identity.email ? { claimed_email: identity.email } : {});
    const who = { id: user.id, name: user.username, companyId: user.company_id };
    if (user.disabled) return fail('disabled', 'disabled', {}, who);

    const handoff = newToken();
    await this.deps.logins.authenticated(row.id, user.id, hashToken(handoff), nowIso(new Date(Date.now() + HANDOFF_MS)));
    // A fragment: never sent to a server, so the code reaches no access log or Referer.
    return { to: `/#sso=${handoff}` };
  }

  /** Trades the one-time code for the portal's session, once. */
  async complete(code: string): Promise<TLoginResponse> {
    const userId = looksLikeToken(code) ? await this.deps.logins.takeHandoff(hashToken(code), nowIso()) : undefined;
    const user = userId === undefined ? undefined : await this.deps.portal.users.findById(userId);
    // Disabled between the provider's answer and this exchange: no session either.
    if (!user || user.disabled) throw new AppError(401, EXPIRED_HANDOFF_MESSAGE);
    return this.deps.portal.auth.startSession(user, 'sso');
  }

  /** The company's settings when its users can sign in through its provider now. */
  private async usable(companyId: number): Promise<{ row: CompanySsoRow; provider: ProviderSettings } | undefined> {
    const row = await this.deps.settings.find(companyId);
    if (!row?.enabled || !row.issuer || !row.client_id || !row.client_secret_enc) return undefined;
    try {
      return { row, provider: { issuer: row.issuer, clientId: row.client_id, clientSecret: this.deps.box.open(row.client_secret_enc, companyId) } };
    } catch (error) {
      this.deps.warn(error, `Single sign-on of company ${companyId}: its client secret cannot be decrypted (was SSO_SECRET_KEY or the key file changed?)`);
      return undefined;
    }
  }

  private async createFromIdentity(identity: Identity, companyId: number): Promise<UserRow | undefined> {
    const input = newUserFrom(identity, companyId);
    // A username another company's user holds is not taken over.
    if (!input || (await this.deps.portal.users.findByUsername(input.username))) return undefined;
    return this.deps.portal.createUser(input);
  }
}
