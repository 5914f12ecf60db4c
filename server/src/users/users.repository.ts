import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { NewUser, UserRow, UserUpdate } from '../db/schema.js';
import { containsText } from '../db/search.js';

export interface UserFilter {
  /** The actor's company, or 'all'. */
  scope: number | 'all';
  companyId?: number | undefined;
  q?: string | undefined;
}

export class UsersRepository {
  constructor(private readonly db: Db) {}

  findByUsername(username: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
  }

  findById(id: number, scope: number | 'all' = 'all'): Promise<UserRow | undefined> {
    let query = this.db.selectFrom('users').selectAll().where('id', '=', id);
    if (scope !== 'all') query = query.where('company_id', '=', scope);
    return query.executeTakeFirst();
  }

  list(): Promise<UserRow[]> {
    return this.db.selectFrom('users').selectAll().orderBy('id').execute();
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  #filtered(filter: UserFilter) {
    let query = this.db.selectFrom('users');
    if (filter.scope !== 'all') query = query.where('company_id', '=', filter.scope);
    if (filter.companyId !== undefined) query = query.where('company_id', '=', filter.companyId);
    const q = filter.q?.trim();
    if (q) {
      query = query.where((eb) =>
        eb.or([containsText(eb.ref('username'), q), containsText(eb.ref('firstname'), q), containsText(eb.ref('lastname'), q), containsText(eb.ref('email'), q)]),
      );
    }
    return query;
  }

  /** One page of the users a filter matches, by id, and how many match in all. */
  async page(filter: UserFilter, order: 'asc' | 'desc', offset: number, limit: number): Promise<{ rows: UserRow[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.#filtered(filter).selectAll().orderBy('id', order).offset(offset).limit(limit).execute(),
      this.#filtered(filter)
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  withRole(companyId: number, role: number): Promise<UserRow[]> {
    return this.db.selectFrom('users').selectAll().where('company_id', '=', companyId).where('role', '=', role).orderBy('id').execute();
  }

  update(id: number, changes: Pick<UserUpdate, 'firstname' | 'lastname' | 'role' | 'email' | 'disabled'>): Promise<UserRow> {
    return this.db
      .updateTable('users')
      .set({ ...changes, updated_at: nowIso() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  create(user: Omit<NewUser, 'created_at' | 'updated_at' | 'disabled' | 'email'> & { email?: string | null }): Promise<UserRow> {
    const now = nowIso();
    return this.db
      .insertInto('users')
      .values({ ...user, email: user.email ?? null, disabled: 0, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /**
   * Changes a password and voids the user's open reset links, in one transaction: every way of
   * changing a password (one's own, a reset link, an admin, the admin command) comes here, so a
   * link made before the change can never set the password after it.
   */
  async setPasswordHash(id: number, passwordHash: string): Promise<void> {
    const now = nowIso();
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ password_hash: passwordHash, updated_at: now }).where('id', '=', id).execute();
      await trx.updateTable('password_links').set({ used_at: now }).where('user_id', '=', id).where('used_at', 'is', null).execute();
    });
  }

  async setDisabled(id: number, disabled: boolean): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ disabled: disabled ? 1 : 0, updated_at: nowIso() })
      .where('id', '=', id)
      .execute();
  }
}
