// `Authorization: Bearer pup_…`: a personal API token in place of a session (issue 37). Checked on
// every request against the database as it is now (revoked, expired, owner disabled or gone: 401
// at once), then against its scope's allow-list of routes (token-scopes.ts: 403 elsewhere). What
// it may then reach is its owner's, narrowed to its projects when it lists some (Actor.projectIds).
import type { FastifyRequest } from 'fastify';
import type { AuditTrail } from '../audit/index.js';
import { runWithAuditContext } from '../audit/index.js';
import type { AuthenticatedSession, OtherBearer } from '../auth/index.js';
import { nowIso } from '../db/database.js';
import { AppError, unauthorized } from '../errors/app-error.js';
import { isRole } from '../users/index.js';
import { projectIdsOf } from './api-token.presenter.js';
import { claimsApiToken, hashApiTokenSecret, wellFormedApiToken } from './api-token-secret.js';
import { routeName, scopeAllows } from './token-scopes.js';
import type { ApiTokensRepository } from './tokens.repository.js';

/** Writing last_used_at on every request would turn every read into a write; a new address is written at once. */
const TOUCH_INTERVAL_MS = 60_000;

const NOT_VALID = 'This API token is not valid. Create a new one under API tokens in the portal’s account menu.';
const EXPIRED = 'This API token has expired. Create a new one under API tokens in the portal’s account menu.';
const REVOKED = 'This API token was revoked. Create a new one under API tokens in the portal’s account menu.';
const OWNER_DISABLED = 'The account this API token belongs to is disabled, so the token no longer works.';
const NEVER = 'API tokens cannot be used for this. Sign in to the portal to do it.';
const READ_ONLY = 'This API token may only read. Create a token with the upload scope to send files.';

export class ApiTokenBearer implements OtherBearer {
  constructor(
    private readonly tokens: ApiTokensRepository,
    private readonly audit: AuditTrail,
    private readonly apiPrefix: string,
    private readonly clock: () => number = Date.now,
  ) {}

  async authenticate(bearer: string, request: FastifyRequest): Promise<AuthenticatedSession | undefined> {
    if (!claimsApiToken(bearer)) return undefined;
    const found = wellFormedApiToken(bearer) ? await this.tokens.findByHash(hashApiTokenSecret(bearer)) : undefined;
    if (!found) throw unauthorized(NOT_VALID);
    const { token, user } = found;
    const now = this.clock();
    if (token.revoked_at !== null) throw unauthorized(REVOKED);
    if (Date.parse(token.expires_at) <= now) throw unauthorized(EXPIRED);
    if (!user || user.disabled || !isRole(user.role)) throw unauthorized(OWNER_DISABLED);

    // An address no route answers (no url) goes on to its 404, as it would with a session.
    const url = request.routeOptions.url;
    const route = url === undefined ? undefined : routeName(request.method, url, this.apiPrefix);
    if (route !== undefined && !scopeAllows(token.scope, route)) throw new AppError(403, scopeAllows('upload', route) ? READ_ONLY : NEVER);

    const actor = { userId: user.id, companyId: user.company_id, role: user.role, projectIds: projectIdsOf(token) };
    await this.#noteUse(token, request, { id: user.id, name: user.username, companyId: user.company_id }, now);
    // No session row stands behind a token: routes that would use the session's id (sign-out,
    // password changes) are never on a scope's list.
    return { actor, sessionId: 0, username: user.username };
  }

  async #noteUse(
    token: { id: number; name: string; company_id: number; last_used_at: string | null; last_used_ip: string | null },
    request: FastifyRequest,
    owner: { id: number; name: string; companyId: number },
    now: number,
  ): Promise<void> {
    const address = request.ip;
    const moved = token.last_used_ip !== address;
    if (!moved && token.last_used_at !== null && now - Date.parse(token.last_used_at) < TOUCH_INTERVAL_MS) return;
    const at = nowIso(new Date(now));
    await this.tokens.touch(token.id, at, address);
    if (!moved || !(await this.tokens.addressIsNew(token.id, address, at))) return;
    // The request's own audit context is set only after authentication (request-auth.ts).
    await runWithAuditContext({ actor: owner, ip: address, userAgent: request.headers['user-agent'] ?? null }, () =>
      this.audit.record({ action: 'api_token.new_address', companyId: token.company_id, object: { type: 'api_token', id: token.id }, details: { name: token.name } }),
    );
  }
}
