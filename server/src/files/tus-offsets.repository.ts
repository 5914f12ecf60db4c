// The offset of every resumable upload the shared tus store holds (TUS_STORE=shared, migration
// 017): the one place every API node learns how many bytes of an upload are stored.
import type { Db } from '../db/database.js';
import type { TusUploadRow } from '../db/schema.js';

export class TusOffsetsRepository {
  constructor(private readonly db: Db) {}

  /** An upload's record and its stored bytes (0 before its first chunk). */
  async find(id: string): Promise<{ row: TusUploadRow; received: number } | undefined> {
    const found = await this.db
      .selectFrom('tus_uploads')
      .leftJoin('tus_offsets', 'tus_offsets.upload_id', 'tus_uploads.id')
      .selectAll('tus_uploads')
      .select('tus_offsets.received')
      .where('tus_uploads.id', '=', id)
      .executeTakeFirst();
    if (!found) return undefined;
    const { received, ...row } = found;
    return { row, received: Number(received ?? 0) };
  }

  /** The upload starts with no bytes; a second creation of the same id is a no-op. */
  async start(id: string): Promise<void> {
    await this.db.insertInto('tus_offsets').values({ upload_id: id, received: 0 }).onConflict((oc) => oc.column('upload_id').doNothing()).execute();
  }

  /**
   * Moves the offset from `from` to `to`: false when it is no longer `from` (another request moved
   * it, or the upload was removed), so the chunk written meanwhile must not count.
   */
  async advance(id: string, from: number, to: number): Promise<boolean> {
    const result = await this.db
      .updateTable('tus_offsets')
      .set({ received: to })
      .where('upload_id', '=', id)
      .where('received', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Which of `ids` name an upload still recorded: chunk objects of any other are leftovers. */
  async existing(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.selectFrom('tus_uploads').select('id').where('id', 'in', ids).execute();
    return new Set(rows.map((r) => r.id));
  }
}
