// Deliveries (DESIGN §10) and the files that arrived in them. Every query that serves a request is
// scoped to a company (or 'all' for the Sys roles) and to a live project, like files.
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { DeliveryFileRow, DeliveryRow, ProjectFileRow } from '../db/schema.js';
import { enqueueJob } from '../jobs/index.js';
import type { Scope } from '../projects/index.js';
import { PROCESS_DELIVERY } from './process-delivery.job.js';

/** Rolls back a member's transaction whose upload record was no longer open. */
class UploadGone extends Error {}

export type DeliveryWithTotals = DeliveryRow & { files: number; bytes: number };

export interface NewMember {
  delivery_id: number;
  relative_path: string;
  size: number;
  sha256: string;
  storage_key: string;
}

export class DeliveriesRepository {
  constructor(private readonly db: Db) {}

  async create(values: Pick<DeliveryRow, 'project_id' | 'company_id' | 'created_by' | 'name'>, expiresAt: Date): Promise<DeliveryRow> {
    const now = nowIso();
    return this.db
      .insertInto('deliveries')
      .values({ ...values, state: 'open', file_id: null, created_at: now, updated_at: now, expires_at: nowIso(expiresAt) })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** A delivery of a live project within `scope`; an expired open one is as good as gone. */
  findRow(id: number, scope: Scope): Promise<DeliveryRow | undefined> {
    let query = this.db
      .selectFrom('deliveries')
      .innerJoin('projects', 'projects.id', 'deliveries.project_id')
      .selectAll('deliveries')
      .where('deliveries.id', '=', id)
      .where('projects.deleted_at', 'is', null)
      .where((eb) => eb.or([eb('deliveries.state', '=', 'completed'), eb('deliveries.expires_at', '>', nowIso())]));
    if (scope !== 'all') query = query.where('deliveries.company_id', '=', scope);
    return query.executeTakeFirst();
  }

  /** As `findRow`, with its files counted: for answers only (a count reads every file of it). */
  async find(id: number, scope: Scope): Promise<DeliveryWithTotals | undefined> {
    const row = await this.findRow(id, scope);
    return row && { ...row, ...(await this.totals(row.id)) };
  }

  async totals(deliveryId: number): Promise<{ files: number; bytes: number }> {
    const row = await this.db
      .selectFrom('delivery_files')
      .select((eb) => [eb.fn.countAll<number | string>().as('files'), eb.fn.sum<number | string | null>('size').as('bytes')])
      .where('delivery_id', '=', deliveryId)
      .executeTakeFirstOrThrow();
    return { files: Number(row.files), bytes: Number(row.bytes ?? 0) };
  }

  /**
   * Whether `path` is taken in the delivery by a file that arrived or is arriving: the same path,
   * a folder of it, or a path under it (a file and a folder cannot share a name in a zip).
   */
  async pathTaken(deliveryId: number, path: string): Promise<boolean> {
    const folders = path.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'));
    const names = [path, ...folders];
    const under = `${path}/`;
    const clash = (column: 'delivery_files.relative_path' | 'tus_uploads.relative_path') =>
      sql<boolean>`(${sql.ref(column)} in (${sql.join(names)}) or substr(${sql.ref(column)}, 1, ${under.length}) = ${under})`;
    const arrived = await this.db
      .selectFrom('delivery_files')
      .select('id')
      .where('delivery_id', '=', deliveryId)
      .where(clash('delivery_files.relative_path'))
      .executeTakeFirst();
    if (arrived) return true;
    const arriving = await this.db
      .selectFrom('tus_uploads')
      .select('id')
      .where('delivery_id', '=', deliveryId)
      .where('expires_at', '>', nowIso())
      .where(clash('tus_uploads.relative_path'))
      .executeTakeFirst();
    return arriving !== undefined;
  }

  /** Files of the delivery still arriving (unfinished, unexpired resumable uploads). */
  async arriving(deliveryId: number): Promise<number> {
    const row = await this.db
      .selectFrom('tus_uploads')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('delivery_id', '=', deliveryId)
      .where('expires_at', '>', nowIso())
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Records a file that arrived whole, while the delivery is still open ('closed' otherwise: it was
   * completed or swept meanwhile), and renews the delivery's expiry. In the same transaction its
   * pending record goes (so the object is either a member or swept) and so does the record of the
   * upload it arrived by, which must still be open ('gone' otherwise: another request finished it,
   * or it was cancelled or swept).
   */
  addMember(member: NewMember, expiresAt: Date, uploadId: string): Promise<'added' | 'closed' | 'gone'> {
    return this.db
      .transaction()
      .execute(async (trx) => {
        const now = nowIso();
        // The member belongs to the delivery's company, which is not the uploader's for a Sys role.
        const renewed = await trx
          .updateTable('deliveries')
          .set({ updated_at: now, expires_at: nowIso(expiresAt) })
          .where('id', '=', member.delivery_id)
          .where('state', '=', 'open')
          .returning('company_id')
          .executeTakeFirst();
        if (renewed === undefined) return 'closed';
        const ended = await trx.deleteFrom('tus_uploads').where('id', '=', uploadId).where('state', '=', 'open').executeTakeFirst();
        if (Number(ended.numDeletedRows) !== 1) throw new UploadGone();
        await trx.insertInto('delivery_files').values({ ...member, company_id: renewed.company_id, created_at: now }).execute();
        await trx.deleteFrom('pending_uploads').where('storage_key', '=', member.storage_key).execute();
        return 'added' as const;
      })
      .catch((err: unknown) => {
        if (err instanceof UploadGone) return 'gone' as const;
        throw err;
      });
  }

  /**
   * Closes an open delivery: its row of project_files appears and its one processing job is
   * queued, in one transaction. Undefined when it was no longer open.
   */
  complete(delivery: DeliveryRow, file: { filesize: number; sha256: string }): Promise<ProjectFileRow | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const now = nowIso();
      const closed = await trx
        .updateTable('deliveries')
        .set({ state: 'completed', updated_at: now, expires_at: null })
        .where('id', '=', delivery.id)
        .where('state', '=', 'open')
        .executeTakeFirst();
      if (Number(closed.numUpdatedRows) !== 1) return undefined;
      const row = await trx
        .insertInto('project_files')
        .values({
          project_id: delivery.project_id,
          company_id: delivery.company_id,
          file: delivery.name,
          filesize: file.filesize,
          sha256: file.sha256,
          // No object has this key: a delivery's bytes are its members' objects.
          storage_key: `deliveries/${delivery.id}`,
          kind: 'folder',
          created_by: delivery.created_by,
          created_at: now,
          updated_at: now,
          deleted_at: null,
          processing_status: 'pending',
          processing_error: null,
          processing_summary: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx.updateTable('deliveries').set({ file_id: row.id }).where('id', '=', delivery.id).execute();
      await enqueueJob(trx, PROCESS_DELIVERY, { fileId: row.id, companyId: row.company_id });
      return row;
    });
  }

  /** The files of a delivery, by path. */
  members(deliveryId: number): Promise<DeliveryFileRow[]> {
    return this.db.selectFrom('delivery_files').selectAll().where('delivery_id', '=', deliveryId).orderBy('relative_path').execute();
  }

  /** The files of the delivery shown as file `fileId`, by path (empty for any other file). */
  membersOfFile(fileId: number): Promise<DeliveryFileRow[]> {
    return this.db
      .selectFrom('delivery_files')
      .innerJoin('deliveries', 'deliveries.id', 'delivery_files.delivery_id')
      .selectAll('delivery_files')
      .where('deliveries.file_id', '=', fileId)
      .orderBy('delivery_files.relative_path')
      .execute();
  }

  /** Open deliveries past their expiry. */
  async expired(): Promise<number[]> {
    const rows = await this.db.selectFrom('deliveries').select('id').where('state', '=', 'open').where('expires_at', '<=', nowIso()).execute();
    return rows.map((r) => r.id);
  }

  async uploadsOf(deliveryId: number): Promise<string[]> {
    return (await this.db.selectFrom('tus_uploads').select('id').where('delivery_id', '=', deliveryId).execute()).map((r) => r.id);
  }

  async removeMember(id: number): Promise<void> {
    await this.db.deleteFrom('delivery_files').where('id', '=', id).execute();
  }

  /** An expired open delivery whose files and uploads are already gone; false if it was completed meanwhile. */
  async removeOpen(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('deliveries').where('id', '=', id).where('state', '=', 'open').executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }
}
