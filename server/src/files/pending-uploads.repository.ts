import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';

export class PendingUploadsRepository {
  constructor(private readonly db: Db) {}

  async begin(storageKey: string, leaseMs: number): Promise<void> {
    const now = new Date();
    await this.db
      .insertInto('pending_uploads')
      .values({
        storage_key: storageKey,
        created_at: nowIso(now),
        lease_until: nowIso(new Date(now.getTime() + leaseMs)),
      })
      .execute();
  }

  async renew(storageKey: string, leaseMs: number): Promise<void> {
    await this.db
      .updateTable('pending_uploads')
      .set({ lease_until: nowIso(new Date(Date.now() + leaseMs)) })
      .where('storage_key', '=', storageKey)
      .execute();
  }

  async end(storageKey: string): Promise<void> {
    await this.db.deleteFrom('pending_uploads').where('storage_key', '=', storageKey).execute();
  }

  /** Uploads whose process stopped renewing them (all of them, when `all`). */
  async abandoned(all: boolean): Promise<string[]> {
    let query = this.db.selectFrom('pending_uploads').select('storage_key');
    if (!all) query = query.where('lease_until', '<', nowIso());
    return (await query.execute()).map((r) => r.storage_key);
  }
}
