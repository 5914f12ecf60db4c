// What purging deleted files reads and writes (purge.service.ts): which deleted files are due, the
// stored objects each one holds, and the mark that it was purged.
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import { enqueueJob } from '../jobs/index.js';
import { PURGE_DELETED, uploadSubject } from './file-jobs.js';

/** A deleted file (or delivery) not yet purged, or a file of a deleted project. */
export interface PurgeCandidate {
  id: number;
  company_id: number;
  project_id: number;
  file: string;
  kind: string;
  filesize: number | string;
  storage_key: string;
  deleted_at: string | null;
  /** Set when the file is due because its project was deleted (its own row may be live). */
  project_deleted_at: string | null;
}

export class PurgeRepository {
  constructor(private readonly db: Db) {}

  /** For the purge's last writes with its audit row (AuditTrail.recordIn). */
  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /**
   * Up to `limit` files deleted at or before `cutoff`, or whose project was, not yet purged, by id
   * after `after`. A project's deletion leaves its files' rows as they were (projects.repository.ts),
   * so those are found through the project.
   */
  async due(cutoff: string, after: number, limit: number): Promise<PurgeCandidate[]> {
    const columns = ['f.id', 'f.company_id', 'f.project_id', 'f.file', 'f.kind', 'f.filesize', 'f.storage_key', 'f.deleted_at'] as const;
    const [deleted, inDeletedProjects] = await Promise.all([
      this.db
        .selectFrom('project_files as f')
        .select(columns)
        .select(sql<string | null>`null`.as('project_deleted_at'))
        .where('f.deleted_at', 'is not', null)
        .where('f.purged_at', 'is', null)
        .where('f.deleted_at', '<=', cutoff)
        .where('f.id', '>', after)
        .orderBy('f.id')
        .limit(limit)
        .execute(),
      this.db
        .selectFrom('projects as p')
        .innerJoin('project_files as f', 'f.project_id', 'p.id')
        .select(columns)
        .select('p.deleted_at as project_deleted_at')
        .where('p.deleted_at', 'is not', null)
        .where('p.deleted_at', '<=', cutoff)
        .where('f.purged_at', 'is', null)
        .where('f.id', '>', after)
        .orderBy('f.id')
        .limit(limit)
        .execute(),
    ]);
    // A deleted file of a deleted project is in both: once, with its own deletion time.
    const byId = new Map<number, PurgeCandidate>();
    for (const row of [...inDeletedProjects, ...deleted]) byId.set(row.id, row);
    return [...byId.values()].sort((a, b) => a.id - b.id).slice(0, limit);
  }

  /**
   * Whether processing of the file may still be writing its entries: its job is running, or was
   * cancelled (by the deletion) less than a lease ago, as a worker notices a cancel only when it
   * next renews its lease.
   */
  async mayStillBeProcessed(fileId: number, leaseMs: number, now: Date): Promise<boolean> {
    const recently = nowIso(new Date(now.getTime() - leaseMs));
    const row = await this.db
      .selectFrom('jobs')
      .select('id')
      .where('subject', '=', uploadSubject(fileId))
      .where((eb) => eb.or([eb('status', '=', 'running'), eb.and([eb('status', '=', 'cancelled'), eb('updated_at', '>', recently)])]))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Every object the file's rows point to, with its size: the upload itself (a delivery's row has
   * no object of its own), a delivery's files and bundles, the entries extracted from either, and
   * the thumbnails drawn from them (a series another upload holds too has that upload's own).
   */
  async objectsOf(file: PurgeCandidate): Promise<Map<string, number>> {
    const objects = new Map<string, number>();
    if (file.kind !== 'folder') objects.set(file.storage_key, Number(file.filesize));
    const ofDelivery = this.db.selectFrom('deliveries').select('id').where('file_id', '=', file.id);
    const [members, bundles, entries, thumbnails] = await Promise.all([
      this.db.selectFrom('delivery_files').select(['storage_key', 'size']).where('delivery_id', 'in', ofDelivery).where('storage_offset', 'is', null).execute(),
      this.db.selectFrom('delivery_bundles').select(['storage_key', 'size']).where('delivery_id', 'in', ofDelivery).execute(),
      // An entry with an offset is a range of an object above; without, its own (or the upload itself).
      this.db.selectFrom('file_entries').select(['storage_key', 'size']).where('file_id', '=', file.id).where('storage_key', 'is not', null).where('storage_offset', 'is', null).execute(),
      this.db.selectFrom('series_thumbnails').select(['storage_key', 'size']).where('file_id', '=', file.id).where('storage_key', 'is not', null).execute(),
    ]);
    for (const row of [...members, ...bundles, ...entries, ...thumbnails]) if (!objects.has(row.storage_key!)) objects.set(row.storage_key!, Number(row.size));
    return objects;
  }

  /**
   * Marks the file purged and removes the rows that only pointed at its objects, in `trx`; false
   * when another worker marked it first (then nothing is written).
   */
  async markPurged(trx: Db, fileId: number, at: Date): Promise<boolean> {
    const marked = await trx.updateTable('project_files').set({ purged_at: nowIso(at) }).where('id', '=', fileId).where('purged_at', 'is', null).executeTakeFirst();
    if (Number(marked.numUpdatedRows) !== 1) return false;
    await trx.deleteFrom('file_entries').where('file_id', '=', fileId).execute();
    await trx.deleteFrom('series_thumbnails').where('file_id', '=', fileId).execute();
    const ofDelivery = trx.selectFrom('deliveries').select('id').where('file_id', '=', fileId);
    await trx.deleteFrom('delivery_files').where('delivery_id', 'in', ofDelivery).execute();
    await trx.deleteFrom('delivery_bundles').where('delivery_id', 'in', ofDelivery).execute();
    return true;
  }

  /**
   * Queues a purge run unless one is already waiting to start (one running may have passed the
   * files deleted since). Two nodes queueing at once make two runs, which is harmless: each file
   * is marked purged by one of them only.
   */
  async queueRun(): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const waiting = await trx.selectFrom('jobs').select('id').where('name', '=', PURGE_DELETED.name).where('status', '=', 'queued').limit(1).executeTakeFirst();
      if (waiting) return false;
      await enqueueJob(trx, PURGE_DELETED, {});
      return true;
    });
  }
}
