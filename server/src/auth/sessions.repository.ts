import type { Db } from '../db/database.js';
import { PreparedQueries } from '../db/prepared-queries.js';
import type { SessionRow, UserRow } from '../db/schema.js';

export class SessionsRepository {
  // Every request is authenticated: its lookup is built once (db/prepared-queries.ts).
  readonly #prepared: PreparedQueries;

  constructor(private readonly db: Db) {
    this.#prepared = new PreparedQueries(db);
  }

  async create(row: { user_id: number; token_hash: string; now: string; expires_at: string }): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({
        user_id: row.user_id,
        token_hash: row.token_hash,
        created_at: row.now,
        last_used_at: row.now,
        expires_at: row.expires_at,
        revoked_at: null,
      })
      .execute();
  }

  /** A session with its user, in one query: every authenticated request asks this first. */
  async findWithUser(tokenHash: string): Promise<{ session: Pick<SessionRow, 'id' | 'expires_at' | 'last_used_at' | 'revoked_at'>; user: UserRow } | undefined> {
    // Two lookups by unique key rather than one join: SQLite compiled the joined statement anew at
    // every run (its bound value taking part in planning the join), which cost more than both.
    const [session] = await this.#prepared.rows('sessionByHash', [tokenHash], ([hash]) =>
      this.db.selectFrom('sessions').select(['id', 'user_id', 'expires_at', 'last_used_at', 'revoked_at']).where('token_hash', '=', hash!),
    );
    if (session === undefined) return undefined;
    const [user] = await this.#prepared.rows('userById', [session.user_id], ([id]) =>
      this.db.selectFrom('users').selectAll().where('id', '=', id as unknown as number),
    );
    if (user === undefined) return undefined;
    const { user_id: _userId, ...rest } = session;
    return { session: rest, user };
  }

  async touch(id: number, now: string): Promise<void> {
    await this.db.updateTable('sessions').set({ last_used_at: now }).where('id', '=', id).execute();
  }

  async revoke(id: number, now: string): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** Revokes every live session of a user except `keepId` (the one asking, if any). */
  async revokeAllForUser(userId: number, now: string, keepId?: number): Promise<void> {
    let query = this.db
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null);
    if (keepId !== undefined) query = query.where('id', '!=', keepId);
    await query.execute();
  }

  /** Expired and revoked sessions are kept a day for audit, then removed. */
  async purgeBefore(cutoff: string): Promise<void> {
    await this.db
      .deleteFrom('sessions')
      .where((eb) => eb.or([eb('expires_at', '<', cutoff), eb('revoked_at', '<', cutoff)]))
      .execute();
  }
}
