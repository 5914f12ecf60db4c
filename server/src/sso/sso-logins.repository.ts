// A sign-in through a provider moves through its row once: started (the browser went to the
// provider), exchanging (the provider's answer was taken, by exactly one request), authenticated
// (a one-time code is out to the web app), then the row is deleted when that code is used. Each
// step is a conditional update, so two requests racing with the same state or code cannot both win.
import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { SsoLoginRow } from '../db/schema.js';

export class SsoLoginsRepository {
  constructor(private readonly db: Db) {}

  async start(row: { state_hash: string; company_id: number; code_verifier: string; nonce: string; redirect_uri: string; expires_at: string }): Promise<void> {
    await this.db
      .insertInto('sso_logins')
      .values({ ...row, stage: 'started', user_id: null, handoff_hash: null, created_at: nowIso() })
      .execute();
  }

  /** Takes the started sign-in of this state, once; undefined when unknown, used or expired. */
  async takeStarted(stateHash: string, now: string): Promise<SsoLoginRow | undefined> {
    const taken = await this.db
      .updateTable('sso_logins')
      .set({ stage: 'exchanging' })
      .where('state_hash', '=', stateHash)
      .where('stage', '=', 'started')
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) !== 1) return undefined;
    return this.db.selectFrom('sso_logins').selectAll().where('state_hash', '=', stateHash).executeTakeFirst();
  }

  async authenticated(id: number, userId: number, handoffHash: string, expiresAt: string): Promise<void> {
    await this.db
      .updateTable('sso_logins')
      // The verifier has done its work; it is not kept a moment longer than needed.
      .set({ stage: 'authenticated', user_id: userId, handoff_hash: handoffHash, code_verifier: '', expires_at: expiresAt })
      .where('id', '=', id)
      .execute();
  }

  /** Uses a one-time code: the user it signs in, once; undefined when unknown, used or expired. */
  async takeHandoff(handoffHash: string, now: string): Promise<number | undefined> {
    const row = await this.db
      .deleteFrom('sso_logins')
      .where('handoff_hash', '=', handoffHash)
      .where('stage', '=', 'authenticated')
      .where('expires_at', '>', now)
      .returning('user_id')
      .executeTakeFirst();
    return row?.user_id ?? undefined;
  }

  async remove(id: number): Promise<void> {
    await this.db.deleteFrom('sso_logins').where('id', '=', id).execute();
  }

  async purgeExpired(now: string): Promise<void> {
    await this.db.deleteFrom('sso_logins').where('expires_at', '<=', now).execute();
  }
}
