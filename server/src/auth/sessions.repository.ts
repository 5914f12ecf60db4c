import type { Db } from '../db/database.js';
import type { SessionRow } from '../db/schema.js';

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

  findByTokenHash(tokenHash: string): Promise<SessionRow | undefined> {
    return this.db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
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
