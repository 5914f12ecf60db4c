// Download links (migration 012): tickets kept by their SHA-256, claimed once, swept when dead.
import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { DownloadLinkRow } from '../db/schema.js';

export type NewDownloadLink = Pick<DownloadLinkRow, 'ticket_hash' | 'user_id' | 'company_id' | 'file_id' | 'entry_id' | 'start_by'>;

export class DownloadLinksRepository {
  constructor(private readonly db: Db) {}

  async create(link: NewDownloadLink): Promise<void> {
    await this.db
      .insertInto('download_links')
      .values({ ...link, created_at: nowIso(), used_at: null, client_hash: null, dead_after: link.start_by })
      .execute();
  }

  findByHash(ticketHash: string): Promise<DownloadLinkRow | undefined> {
    return this.db.selectFrom('download_links').selectAll().where('ticket_hash', '=', ticketHash).executeTakeFirst();
  }

  /**
   * Spends an unused link that is still in time, in one statement, so that of two requests racing
   * for it exactly one wins. Answers whether this one did.
   */
  async claim(id: number, use: { now: Date; clientHash: string; resumeUntil: Date }): Promise<boolean> {
    const result = await this.db
      .updateTable('download_links')
      .set({ used_at: nowIso(use.now), client_hash: use.clientHash, dead_after: nowIso(use.resumeUntil) })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .where('start_by', '>', nowIso(use.now))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Every link to these files stops working (they were deleted). */
  async revokeFiles(fileIds: readonly number[]): Promise<void> {
    if (fileIds.length === 0) return;
    await this.db.deleteFrom('download_links').where('file_id', 'in', fileIds).execute();
  }

  /** Removes links that can no longer be used; answers how many. */
  async sweep(now = new Date()): Promise<number> {
    const result = await this.db.deleteFrom('download_links').where('dead_after', '<=', nowIso(now)).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
