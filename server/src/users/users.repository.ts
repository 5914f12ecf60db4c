import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { NewUser, UserRow } from '../db/schema.js';

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

  create(user: Omit<NewUser, 'created_at' | 'updated_at' | 'disabled'>): Promise<UserRow> {
    const now = nowIso();
    return this.db
      .insertInto('users')
      .values({ ...user, disabled: 0, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async setPasswordHash(id: number, passwordHash: string): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ password_hash: passwordHash, updated_at: nowIso() })
      .where('id', '=', id)
      .execute();
  }

  async setDisabled(id: number, disabled: boolean): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ disabled: disabled ? 1 : 0, updated_at: nowIso() })
      .where('id', '=', id)
      .execute();
  }
}
