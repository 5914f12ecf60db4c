// Making, listing and revoking personal API tokens (issue 37). A user manages their own; a
// CompanyAdmin sees and revokes their company's users' tokens, a SysAdmin everyone's (DESIGN §5:
// who manages users). The secret is answered once, at creation, and is never logged or audited.
import { ROLES, type TApiToken, type TCreatedApiToken, type ZCreateApiToken } from '@portal/contract';
import type { z } from 'zod';
import type { AuditTrail } from '../audit/index.js';
import type { Actor } from '../auth/index.js';
import { nowIso } from '../db/database.js';
import { forbidden, notFound } from '../errors/app-error.js';
import type { ProjectsService } from '../projects/index.js';
import { tokenExpiry } from './api-token-expiry.js';
import { presentApiToken, projectIdsOf } from './api-token.presenter.js';
import { hashApiTokenSecret, newApiTokenSecret } from './api-token-secret.js';
import type { ApiTokensRepository, ListedToken, TokenOwners } from './tokens.repository.js';

type CreateApiToken = z.output<typeof ZCreateApiToken>;

const NOT_FOUND = 'API token not found';

export class ApiTokensService {
  constructor(
    private readonly tokens: ApiTokensRepository,
    private readonly projects: ProjectsService,
    private readonly audit: AuditTrail,
    private readonly clock: () => number = Date.now,
  ) {}

  /** 'me': one's own; 'all': a CompanyAdmin's company's, a SysAdmin's everyone's. */
  async list(actor: Actor, owner: 'me' | 'all' = 'me'): Promise<TApiToken[]> {
    const owners = owner === 'me' ? { userId: actor.userId } : administeredOwners(actor);
    if (!owners) throw forbidden('Only a CompanyAdmin or a SysAdmin sees other users’ tokens');
    return this.#present(await this.tokens.list(owners));
  }

  async create(actor: Actor, body: CreateApiToken): Promise<TCreatedApiToken> {
    const now = this.clock();
    const expires = tokenExpiry(body.expires_at, now);
    let projectIds: number[] | null = null;
    if (body.projects !== undefined) {
      projectIds = [...new Set(body.projects)].sort((a, b) => a - b);
      // Each must be a project its owner may read: another company's answers 404, as one that does not exist.
      for (const id of projectIds) await this.projects.require(actor, id, 'read');
    }
    const secret = newApiTokenSecret();
    const row = await this.tokens.create({
      user_id: actor.userId,
      company_id: actor.companyId,
      name: body.name,
      token_hash: hashApiTokenSecret(secret),
      scope: body.scope,
      project_ids: projectIds === null ? null : JSON.stringify(projectIds),
      created_at: nowIso(new Date(now)),
      expires_at: nowIso(expires),
    });
    await this.audit.record({
      action: 'api_token.created',
      companyId: row.company_id,
      object: { type: 'api_token', id: row.id },
      details: { name: row.name, scope: row.scope, projects: projectIds?.join(',') ?? 'all', expires_at: row.expires_at },
    });
    const listed = await this.tokens.find({ userId: actor.userId }, row.id);
    if (!listed) throw notFound(NOT_FOUND);
    const [presented] = await this.#present([listed]);
    return { ...presented!, token: secret };
  }

  async revoke(actor: Actor, id: number): Promise<void> {
    const row = (await this.tokens.find({ userId: actor.userId }, id)) ?? (await this.#findAdministered(actor, id));
    if (!row) throw notFound(NOT_FOUND);
    await this.tokens.revoke(row.id, nowIso(new Date(this.clock())));
    await this.audit.record({
      action: 'api_token.revoked',
      companyId: row.company_id,
      object: { type: 'api_token', id: row.id },
      details: { name: row.name, owner: row.username, scope: row.scope },
    });
  }

  async #findAdministered(actor: Actor, id: number): Promise<ListedToken | undefined> {
    const owners = administeredOwners(actor);
    return owners ? this.tokens.find(owners, id) : undefined;
  }

  async #present(rows: ListedToken[]): Promise<TApiToken[]> {
    const names = await this.tokens.projectNames([...new Set(rows.flatMap((row) => projectIdsOf(row) ?? []))]);
    return rows.map((row) => presentApiToken(row, names));
  }
}

/** Whose tokens an administrator answers for; undefined for a role that administers no one. */
function administeredOwners(actor: Actor): TokenOwners | undefined {
  if (actor.role === ROLES.SysAdmin) return 'all';
  if (actor.role === ROLES.CompanyAdmin) return { companyId: actor.companyId };
  return undefined;
}
