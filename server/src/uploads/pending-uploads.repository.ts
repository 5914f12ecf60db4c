import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import { PreparedQueries } from '../db/prepared-queries.js';

export class PendingUploadsRepository {
  // Every upload begins and ends one: built once (db/prepared-queries.ts).
  readonly #prepared: PreparedQueries;

  constructor(private readonly db: Db) {
    this.#prepared = new PreparedQueries(db);
  }

  /** `reserve`: the company whose allowance holds the upload's announced bytes while it arrives. */
  async begin(storageKey: string, leaseMs: number, reserve?: { companyId: number; bytes: number }): Promise<void> {
    const now = new Date();
    if (reserve) {
      await this.db
        .insertInto('pending_uploads')
        .values({ storage_key: storageKey, created_at: nowIso(now), lease_until: nowIso(new Date(now.getTime() + leaseMs)), company_id: reserve.companyId, reserved_bytes: reserve.bytes })
        .execute();
      return;
    }
    await this.#prepared.run('begin', [storageKey, nowIso(now), nowIso(new Date(now.getTime() + leaseMs))], ([key, createdAt, leaseUntil]) =>
      this.db.insertInto('pending_uploads').values({ storage_key: key!, created_at: createdAt!, lease_until: leaseUntil! }),
    );
  }

  async renew(storageKey: string, leaseMs: number): Promise<void> {
    await this.db
      .updateTable('pending_uploads')
      .set({ lease_until: nowIso(new Date(Date.now() + leaseMs)) })
      .where('storage_key', '=', storageKey)
      .execute();
  }

  /** `on`: inside a transaction (the one that commits the upload's file row). */
  async end(storageKey: string, on?: Db): Promise<void> {
    await this.#prepared.run('end', [storageKey], ([key]) => this.db.deleteFrom('pending_uploads').where('storage_key', '=', key!), on);
  }

  /** Uploads whose process stopped renewing them (all of them, when `all`). */
  async abandoned(all: boolean): Promise<string[]> {
    let query = this.db.selectFrom('pending_uploads').select('storage_key');
    if (!all) query = query.where('lease_until', '<', nowIso());
    return (await query.execute()).map((r) => r.storage_key);
  }
}
