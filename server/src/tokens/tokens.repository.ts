// Personal API tokens and the addresses they were used from. Every read a person can reach takes
// whose tokens they may see (TokenOwners), so another's token is never read (and answers 404).
import type { Db } from '../db/database.js';
import type { ApiTokenRow, UserRow } from '../db/schema.js';

/** Whose tokens a query may touch: one user's, one company's users', or everyone's. */
export type TokenOwners = { userId: number } | { companyId: number } | 'all';

export interface NewApiToken {
  user_id: number;
  company_id: number;
  name: string;
  token_hash: string;
  scope: 'read' | 'upload';
  project_ids: string | null;
  created_at: string;
  expires_at: string;
}

export type ListedToken = ApiTokenRow & { username: string };

export class ApiTokensRepository {
  constructor(private readonly db: Db) {}

  async create(row: NewApiToken): Promise<ApiTokenRow> {
    return this.db
      .insertInto('api_tokens')
      .values({ ...row, last_used_at: null, last_used_ip: null, revoked_at: null })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Live (not revoked) tokens, newest first, with their owner's username. */
  list(owners: TokenOwners): Promise<ListedToken[]> {
    let query = this.db
      .selectFrom('api_tokens')
      .innerJoin('users', 'users.id', 'api_tokens.user_id')
      .selectAll('api_tokens')
      .select('users.username')
      .where('api_tokens.revoked_at', 'is', null)
      .orderBy('api_tokens.id', 'desc');
    if (owners !== 'all') {
      query = 'userId' in owners ? query.where('api_tokens.user_id', '=', owners.userId) : query.where('api_tokens.company_id', '=', owners.companyId);
    }
    return query.execute();
  }

  find(owners: TokenOwners, id: number): Promise<ListedToken | undefined> {
    let query = this.db
      .selectFrom('api_tokens')
      .innerJoin('users', 'users.id', 'api_tokens.user_id')
      .selectAll('api_tokens')
      .select('users.username')
      .where('api_tokens.id', '=', id)
      .where('api_tokens.revoked_at', 'is', null);
    if (owners !== 'all') {
      query = 'userId' in owners ? query.where('api_tokens.user_id', '=', owners.userId) : query.where('api_tokens.company_id', '=', owners.companyId);
    }
    return query.executeTakeFirst();
  }

  async revoke(id: number, now: string): Promise<void> {
    await this.db.updateTable('api_tokens').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  }

  /** The token a secret's hash names, with its owner as the users table has them now (never cached). */
  async findByHash(tokenHash: string): Promise<{ token: ApiTokenRow; user: UserRow | undefined } | undefined> {
    const token = await this.db.selectFrom('api_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    if (!token) return undefined;
    const user = await this.db.selectFrom('users').selectAll().where('id', '=', token.user_id).executeTakeFirst();
    return { token, user };
  }

  async touch(id: number, at: string, address: string): Promise<void> {
    await this.db.updateTable('api_tokens').set({ last_used_at: at, last_used_ip: address }).where('id', '=', id).execute();
  }

  /** Records an address the token is used from; true when it had not been seen before for this token. */
  async addressIsNew(tokenId: number, address: string, at: string): Promise<boolean> {
    const inserted = await this.db
      .insertInto('api_token_addresses')
      .values({ token_id: tokenId, address, first_used_at: at })
      .onConflict((oc) => oc.columns(['token_id', 'address']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  /** The names of the projects tokens are limited to, by id. */
  async projectNames(ids: readonly number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom('projects').select(['id', 'name']).where('id', 'in', [...ids]).execute();
    return new Map(rows.map((row) => [row.id, row.name]));
  }
}
