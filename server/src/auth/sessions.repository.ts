import type { Db } from '../db/database.js';
import type { SessionRow, UserRow } from '../db/schema.js';

export class SessionsRepository {
  constructor(private readonly db: Db) {}

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
    const row = await this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .selectAll('users')
      .select(['sessions.id as session_id', 'sessions.expires_at as session_expires_at', 'sessions.last_used_at as session_last_used_at', 'sessions.revoked_at as session_revoked_at'])
      .where('sessions.token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const { session_id, session_expires_at, session_last_used_at, session_revoked_at, ...user } = row;
    return { session: { id: session_id, expires_at: session_expires_at, last_used_at: session_last_used_at, revoked_at: session_revoked_at }, user };
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
