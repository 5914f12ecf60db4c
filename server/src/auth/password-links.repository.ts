// Reset links and 'Forgot your password?' requests (migration 011).
import type { Db } from '../db/database.js';
import { containsText } from '../db/search.js';
import type { PasswordLinkRow } from '../db/schema.js';

export interface PasswordRequestView {
  id: number;
  user_id: number;
  username: string;
  firstname: string;
  lastname: string;
  company_id: number;
  created_at: string;
  resolved_at: string | null;
}

export interface RequestFilter {
  scope: number | 'all';
  status: 'open' | 'resolved' | 'all';
  q?: string | undefined;
}

export class PasswordLinksRepository {
  constructor(private readonly db: Db) {}

  async createLink(row: { user_id: number; company_id: number; token_hash: string; created_by: number | null; created_at: string; expires_at: string }): Promise<void> {
    await this.db.insertInto('password_links').values({ ...row, used_at: null }).execute();
  }

  findLink(tokenHash: string): Promise<PasswordLinkRow | undefined> {
    return this.db.selectFrom('password_links').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /** Claims a link: true for exactly one caller, while it is unused and unexpired. */
  async use(id: number, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('password_links')
      .set({ used_at: now })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** A newer link replaces the older ones: only the last one made works. */
  async retireLinks(userId: number, now: string): Promise<void> {
    await this.db.updateTable('password_links').set({ used_at: now }).where('user_id', '=', userId).where('used_at', 'is', null).execute();
  }

  hasOpenRequest(userId: number): Promise<boolean> {
    return this.db
      .selectFrom('password_requests')
      .select('id')
      .where('user_id', '=', userId)
      .where('resolved_at', 'is', null)
      .executeTakeFirst()
      .then((row) => row !== undefined);
  }

  async requestsFromAddress(address: string, since: string): Promise<number> {
    const row = await this.db
      .selectFrom('password_requests')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('address', '=', address)
      .where('created_at', '>=', since)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async createRequest(row: { user_id: number; company_id: number; address: string; created_at: string }): Promise<number> {
    const created = await this.db.insertInto('password_requests').values({ ...row, resolved_at: null }).returning('id').executeTakeFirstOrThrow();
    return created.id;
  }

  async resolveRequests(userId: number, now: string): Promise<void> {
    await this.db.updateTable('password_requests').set({ resolved_at: now }).where('user_id', '=', userId).where('resolved_at', 'is', null).execute();
  }

  #requests(filter: RequestFilter) {
    let query = this.db.selectFrom('password_requests as r').innerJoin('users as u', 'u.id', 'r.user_id');
    if (filter.scope !== 'all') query = query.where('r.company_id', '=', filter.scope);
    if (filter.status === 'open') query = query.where('r.resolved_at', 'is', null);
    if (filter.status === 'resolved') query = query.where('r.resolved_at', 'is not', null);
    const q = filter.q?.trim();
    if (q) query = query.where((eb) => eb.or([containsText(eb.ref('u.username'), q), containsText(eb.ref('u.firstname'), q), containsText(eb.ref('u.lastname'), q)]));
    return query;
  }

  async countRequests(filter: RequestFilter): Promise<number> {
    const row = await this.#requests(filter)
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  listRequests(filter: RequestFilter, order: 'asc' | 'desc', offset: number, limit: number): Promise<PasswordRequestView[]> {
    return this.#requests(filter)
      .select(['r.id', 'r.user_id', 'u.username', 'u.firstname', 'u.lastname', 'r.company_id', 'r.created_at', 'r.resolved_at'])
      .orderBy('r.id', order)
      .offset(offset)
      .limit(limit)
      .execute();
  }
}
