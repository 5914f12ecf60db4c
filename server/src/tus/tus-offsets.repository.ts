// The offset and chunk objects of every resumable upload the shared tus store holds (TUS_STORE=
// shared, migration 017): where every API node learns how many bytes of an upload are stored.
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
   * Counts a stored chunk: moves the offset from `from` (where the chunk starts) to `to` and
   * records the chunk's object, in one transaction. false when the offset is no longer `from`
   * (another request moved it, or the upload was removed): the chunk must not count.
   */
  advance(id: string, from: number, to: number, objectKey: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable('tus_offsets')
        .set({ received: to })
        .where('upload_id', '=', id)
        .where('received', '=', from)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) return false;
      await trx.insertInto('tus_chunks').values({ upload_id: id, start: from, size: to - from, object_key: objectKey }).execute();
      return true;
    });
  }

  /** The counted chunks of an upload, in order. */
  async chunks(id: string): Promise<{ key: string; start: number; size: number }[]> {
    const rows = await this.db.selectFrom('tus_chunks').select(['object_key', 'start', 'size']).where('upload_id', '=', id).orderBy('start').execute();
    return rows.map((r) => ({ key: r.object_key, start: Number(r.start), size: Number(r.size) }));
  }

  /** Which of `ids` name an upload still recorded: chunk objects of any other are leftovers. */
  async existing(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.selectFrom('tus_uploads').select('id').where('id', 'in', ids).execute();
    return new Set(rows.map((r) => r.id));
  }
}
