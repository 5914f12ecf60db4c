// Deliveries (DESIGN §10) and the files that arrived in them. Every query that serves a request is
// scoped to a company (or 'all' for the Sys roles) and to a live project, like files.
import { sql, SqliteAdapter, type Transaction } from 'kysely';
import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { Database, DeliveryFileRow, DeliveryRow, ProjectFileRow } from '../db/schema.js';
import { enqueueJob } from '../jobs/index.js';
import type { Scope } from '../projects/index.js';
import { PreparedQueries } from '../db/prepared-queries.js';
import { PathSet } from './delivery-bundle.js';
import { markReplaced, PROCESS_DELIVERY } from '../files/index.js';

/** Rolls back a member's transaction whose upload record was no longer open. */
class UploadGone extends Error {}

/** Rolls back a bundle's transaction: one of its paths is taken. */
class PathClash extends Error {
  constructor(readonly taken: string) {
    super(`path taken: ${taken}`);
  }
}

/** A bundle's files inserted per statement (8 values each, within both engines' limits). */
const BUNDLE_INSERT_ROWS = 500;

export type DeliveryWithTotals = DeliveryRow & { files: number; bytes: number };

export interface NewMember {
  delivery_id: number;
  relative_path: string;
  size: number;
  sha256: string;
  storage_key: string;
  /** Where its bytes start in the object, for a file that arrived in a bundle. */
  storage_offset?: number;
}

export class DeliveriesRepository {
  readonly #prepared: PreparedQueries;

  constructor(private readonly db: Db) {
    this.#prepared = new PreparedQueries(db);
  }

  async create(values: Pick<DeliveryRow, 'project_id' | 'company_id' | 'created_by' | 'name' | 'replaces'>, expiresAt: Date): Promise<DeliveryRow> {
    const now = nowIso();
    return this.db
      .insertInto('deliveries')
      .values({ ...values, state: 'open', file_id: null, created_at: now, updated_at: now, expires_at: nowIso(expiresAt) })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** A delivery of a live project within `scope`; an expired open one is as good as gone. */
  async findRow(id: number, scope: Scope): Promise<DeliveryRow | undefined> {
    // Prepared: every file of a folder asks for its delivery.
    const inCompany = scope !== 'all';
    const rows = await this.#prepared.rows<DeliveryRow>(`findRow:${inCompany}`, inCompany ? [id, nowIso(), scope] : [id, nowIso()], (v) =>
      sql<DeliveryRow>`select "deliveries".* from "deliveries" inner join "projects" on "projects"."id" = "deliveries"."project_id"
        where "deliveries"."id" = ${v[0]} and "projects"."deleted_at" is null
        and ("deliveries"."state" = 'completed' or "deliveries"."expires_at" > ${v[1]})
        ${inCompany ? sql`and "deliveries"."company_id" = ${v[2]}` : sql``}`,
    );
    return rows[0];
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
    // Paths under `path` are those starting with `under`. SQLite compares text byte by byte, so
    // they are exactly the range [under, path + '0') ('0' follows '/'), which the index on
    // (delivery_id, relative_path) finds directly when each side of the `or` names the delivery;
    // the substr() test read every path of the delivery for every file arriving (2,000 files:
    // 2,000 × 1,000 paths on average, ~0.5 ms a file at the end). PostgreSQL's text order follows
    // the database's collation, in which that range does not hold: there the test stays as it was.
    const byteOrder = this.db.getExecutor().adapter instanceof SqliteAdapter;
    const values = [deliveryId, under, `${path}0`, under.length, nowIso(), ...names];
    const taken = async (table: 'delivery_files' | 'tus_uploads') => {
      const rows = await this.#prepared.rows(`pathTaken:${table}:${byteOrder}:${names.length}`, values, (v) => {
        const [delivery, lower, upper, length, now] = v;
        const listed = sql.join(v.slice(5));
        const clash = byteOrder
          ? sql`(("delivery_id" = ${delivery} and "relative_path" in (${listed})) or ("delivery_id" = ${delivery} and "relative_path" >= ${lower} and "relative_path" < ${upper}))`
          : sql`("delivery_id" = ${delivery} and ("relative_path" in (${listed}) or substr("relative_path", 1, ${length}) = ${lower}))`;
        // An upload still arriving counts until it expires.
        const live = table === 'tus_uploads' ? sql`"expires_at" > ${now} and ` : sql``;
        return sql`select "id" from ${sql.table(table)} where ${live}${clash} limit 1`;
      });
      return rows.length > 0;
    };
    return (await taken('delivery_files')) || (await taken('tus_uploads'));
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
    return this.#arrival(member.delivery_id, expiresAt, uploadId, async (trx, companyId, now) => {
      await trx.insertInto('delivery_files').values({ ...member, company_id: companyId, created_at: now }).execute();
      await trx.deleteFrom('pending_uploads').where('storage_key', '=', member.storage_key).execute();
      return 'added' as const;
    });
  }

  /**
   * Records the files of a bundle (their rows share its object, each at its offset) in one
   * transaction, while the delivery is still open ('closed' otherwise), ending the record of the
   * upload it arrived by ('gone' when it was no longer open) and the object's pending record. When
   * a path is taken by a file of the delivery, arrived or arriving alone (the rule of `pathTaken`),
   * nothing is written and that path is answered.
   */
  addBundle(members: readonly NewMember[], bundle: { size: number; sha256: string }, expiresAt: Date, uploadId: string): Promise<'added' | 'closed' | 'gone' | { taken: string }> {
    const deliveryId = members[0]!.delivery_id;
    return this.#arrival(deliveryId, expiresAt, uploadId, async (trx, companyId, now) => {
      // The delivery's paths read once (a few thousand at most), not one query per member.
      const there = await trx.selectFrom('delivery_files').select('relative_path').where('delivery_id', '=', deliveryId).execute();
      const arriving = await trx
        .selectFrom('tus_uploads')
        .select('relative_path')
        .where('delivery_id', '=', deliveryId)
        .where('relative_path', 'is not', null)
        .where('expires_at', '>', now)
        .execute();
      const paths = new PathSet();
      for (const row of [...there, ...arriving]) paths.add(row.relative_path!);
      for (const member of members) if (!paths.add(member.relative_path)) throw new PathClash(member.relative_path);
      await trx
        .insertInto('delivery_bundles')
        .values({ storage_key: members[0]!.storage_key, delivery_id: deliveryId, company_id: companyId, size: bundle.size, sha256: bundle.sha256, created_at: now })
        .execute();
      for (let at = 0; at < members.length; at += BUNDLE_INSERT_ROWS) {
        const rows = members.slice(at, at + BUNDLE_INSERT_ROWS).map((m) => ({ ...m, storage_offset: m.storage_offset ?? null, company_id: companyId, created_at: now }));
        await trx.insertInto('delivery_files').values(rows).execute();
      }
      await trx.deleteFrom('pending_uploads').where('storage_key', '=', members[0]!.storage_key).execute();
      return 'added' as const;
    }).catch((err: unknown) => {
      if (err instanceof PathClash) return { taken: err.taken };
      throw err;
    });
  }

  /**
   * One transaction for what arrived by a tus upload: the open delivery is renewed ('closed' when
   * it no longer is) and the upload's record ended ('gone' when it was no longer open, and nothing
   * is written) before `record` writes the rows, in the delivery's company (not the uploader's
   * for a Sys role). An error thrown by `record` rolls it all back.
   */
  #arrival<T>(
    deliveryId: number,
    expiresAt: Date,
    uploadId: string,
    record: (trx: Transaction<Database>, companyId: number, now: string) => Promise<T>,
  ): Promise<T | 'closed' | 'gone'> {
    return this.db
      .transaction()
      .execute(async (trx) => {
        const now = nowIso();
        const renewed = await trx
          .updateTable('deliveries')
          .set({ updated_at: now, expires_at: nowIso(expiresAt) })
          .where('id', '=', deliveryId)
          .where('state', '=', 'open')
          .returning('company_id')
          .executeTakeFirst();
        if (renewed === undefined) return 'closed' as const;
        const ended = await trx.deleteFrom('tus_uploads').where('id', '=', uploadId).where('state', '=', 'open').executeTakeFirst();
        if (Number(ended.numDeletedRows) !== 1) throw new UploadGone();
        return record(trx, renewed.company_id, now);
      })
      .catch((err: unknown) => {
        if (err instanceof UploadGone) return 'gone' as const;
        throw err;
      });
  }

  /**
   * Records files that arrived whole in one transaction (a group commit: the requests of a folder
   * arriving together share it), for deliveries still open ('closed' otherwise: completed or swept
   * meanwhile), renewing each delivery's expiry once. No upload record or pending record is
   * involved: the file's object is linked after this commits (DeliveriesService.addWholeFile).
   * Fails whole when one path is taken (the unique index): the caller then records them one by one.
   */
  addMembers(members: readonly NewMember[], expiresAt: Date): Promise<('added' | 'closed')[]> {
    return this.db.transaction().execute(async (trx) => {
      const now = nowIso();
      const companies = new Map<number, number | undefined>();
      for (const deliveryId of new Set(members.map((m) => m.delivery_id))) {
        // The member belongs to the delivery's company, which is not the uploader's for a Sys role.
        const renewed = await this.#prepared.rows<{ company_id: number }>(
          'renewOpen',
          [now, nowIso(expiresAt), deliveryId],
          (v) => sql`update "deliveries" set "updated_at" = ${v[0]}, "expires_at" = ${v[1]} where "id" = ${v[2]} and "state" = 'open' returning "company_id"`,
          trx,
        );
        companies.set(deliveryId, renewed[0]?.company_id);
      }
      const rows = members.flatMap((m) => {
        const companyId = companies.get(m.delivery_id);
        return companyId === undefined ? [] : [[m.delivery_id, m.relative_path, m.size, m.sha256, m.storage_key, companyId, now]];
      });
      if (rows.length > 0) {
        await this.#prepared.run(
          `addMembers:${rows.length}`,
          rows.flat(),
          (v) => {
            const tuples = rows.map((_, i) => sql`(${sql.join(v.slice(i * 7, i * 7 + 7))})`);
            return sql`insert into "delivery_files" ("delivery_id", "relative_path", "size", "sha256", "storage_key", "company_id", "created_at") values ${sql.join(tuples)}`;
          },
          trx,
        );
      }
      return members.map((m) => (companies.get(m.delivery_id) === undefined ? 'closed' : 'added'));
    });
  }

  /** Removes the member recorded for `storageKey` (its object could not be stored). */
  async removeMemberByKey(storageKey: string): Promise<void> {
    await this.db.deleteFrom('delivery_files').where('storage_key', '=', storageKey).execute();
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
          replaces: delivery.replaces,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      // The rejected file it answers becomes replaced with it, or the completion is refused (issue 35).
      await markReplaced(trx, row);
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
  /** A de-identified delivery's instances as processing kept them (their own objects, or files kept where they arrived), by path. */
  keptInstancesOf(fileId: number): Promise<{ relative_path: string; size: number | string; storage_key: string; storage_offset: number | string | null }[]> {
    return this.db
      .selectFrom('file_entries')
      .select(['path as relative_path', 'size', 'storage_key', 'storage_offset'])
      .where('file_id', '=', fileId)
      .where('kind', '=', 'dicom')
      .where('storage_key', 'is not', null)
      .orderBy('path')
      .execute() as Promise<{ relative_path: string; size: number | string; storage_key: string; storage_offset: number | string | null }[]>;
  }

  /**
   * Forgets the files (and bundles) of the delivery shown as `fileId` stored under `keys`: their
   * objects were deleted once de-identified copies of them were durable (processing).
   */
  async forgetObjects(fileId: number, keys: readonly string[]): Promise<void> {
    const deliveryIds = this.db.selectFrom('deliveries').select('id').where('file_id', '=', fileId);
    for (let at = 0; at < keys.length; at += 500) {
      const some = keys.slice(at, at + 500);
      await this.db.deleteFrom('delivery_files').where('delivery_id', 'in', deliveryIds).where('storage_key', 'in', some).execute();
      await this.db.deleteFrom('delivery_bundles').where('delivery_id', 'in', deliveryIds).where('storage_key', 'in', some).execute();
    }
  }

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

  /**
   * The bundles recorded for the delivery (their objects already removed): all of them, or with
   * `unused` only those no file of it points to any more.
   */
  async removeBundles(deliveryId: number, opts: { unused?: boolean } = {}): Promise<void> {
    let query = this.db.deleteFrom('delivery_bundles').where('delivery_id', '=', deliveryId);
    if (opts.unused) query = query.where('storage_key', 'not in', this.db.selectFrom('delivery_files').select('storage_key').where('delivery_id', '=', deliveryId));
    await query.execute();
  }

  /** An expired open delivery whose files and uploads are already gone; false if it was completed meanwhile. */
  async removeOpen(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('deliveries').where('id', '=', id).where('state', '=', 'open').executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }
}
