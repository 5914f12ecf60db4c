import { sql, type ExpressionBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import { PreparedQueries } from '../db/prepared-queries.js';
import type { Database, JobRow, ProjectFileRow } from '../db/schema.js';
import { containsText } from '../db/search.js';
import type { TFileSort, TProcessingStatus, TProcessingSummary, TScanStatus, TReviewState, TSortOrder } from '@portal/contract';
import { enqueueJob, type EnqueueOptions } from '../jobs/index.js';
import type { Scope } from '../projects/index.js';
import { PROCESS_UPLOAD, type TDescribedFile } from './file-jobs.js';
import { findReplaceable, markReplaced } from './replacement.js';

export interface NewFile {
  project_id: number;
  company_id: number;
  file: string;
  filesize: number;
  sha256: string;
  storage_key: string;
  kind: 'dicom' | 'archive';
  created_by: number | null;
  /** The rejected file of the same project this upload replaces (issue 35). */
  replaces?: number | null;
}

/** A file row with what the API derives from its neighbours. */
export type FileRow = ProjectFileRow & {
  /** The oldest earlier live file of the same project with the same SHA-256, or null. */
  duplicate_of: number | null;
};

/**
 * Duplicates are derived when read rather than stored: a file stays marked only while the file it
 * repeats is live, and deleting that one hands the mark on to the next copy.
 */
function duplicateOf(eb: ExpressionBuilder<Database, 'project_files'>) {
  return eb
    .selectFrom('project_files as same')
    .select((inner) => inner.fn.min<number>('same.id').as('id'))
    .whereRef('same.project_id', '=', 'project_files.project_id')
    .whereRef('same.company_id', '=', 'project_files.company_id')
    .whereRef('same.sha256', '=', 'project_files.sha256')
    .whereRef('same.id', '<', 'project_files.id')
    // Not `deleted_at is null`: SQLite then took the index on (project_id, deleted_at) and read
    // every live file of the project before this one, for each upload and each listed row; in
    // this form only the index on (project_id, sha256) fits, which finds the copies directly.
    .where((eb) => eb(eb.fn.coalesce('same.deleted_at', eb.val('')), '=', ''))
    .as('duplicate_of');
}

export interface CommitOptions {
  /** Runs last in the row's transaction (the upload's audit record), so it commits with the row. */
  andThen?: (trx: Db, row: ProjectFileRow) => Promise<void>;
  /** What a file read whole on arrival was found to be, carried by its job. */
  described?: TDescribedFile | undefined;
  /** The job is queued already claimed, for a lane reserved to run it (JobRunner.reserve). */
  claimedBy?: EnqueueOptions['claimedBy'];
}

/** What the files table asks for (GET /study-petitions-files with its finding parameters). */
export interface FileFind {
  q?: string | undefined;
  status?: TProcessingStatus[] | undefined;
  /** Review states (issue 35). */
  review?: TReviewState[] | undefined;
  /** Without a sort key: newest first, as the unpaged list. */
  sort?: TFileSort | undefined;
  order: TSortOrder;
  offset: number;
  limit: number;
}

/** A new file row's columns, in the order the prepared insert takes them. */
const NEW_FILE_COLUMNS = ['project_id', 'company_id', 'file', 'filesize', 'sha256', 'storage_key', 'kind', 'created_by', 'replaces'] as const;

export class FilesRepository {
  // An upload's and its job's statements, built once (db/prepared-queries.ts): building them with
  // Kysely cost more than SQLite took to run them.
  readonly #prepared: PreparedQueries;
  /**
   * Rows just committed with their job queued claimed by a lane of this process (`claimedBy`),
   * which starts it at once: findForProcessing takes the row from here rather than reading back
   * what was written moments before. The lane is handed the job in the same turn of the event loop,
   * and its first step reads the row before any I/O, so nothing can have changed the row between;
   * a row not taken within that turn (a lane stopping) is dropped, and read as before. The project
   * is still read: a project's deletion is what the job must notice.
   */
  readonly #handedOver = new Map<number, ProjectFileRow>();

  constructor(private readonly db: Db) {
    this.#prepared = new PreparedQueries(db);
  }

  /** Live files of live projects, within `scope`. */
  private live(scope: Scope) {
    let query = this.db
      .selectFrom('project_files')
      .innerJoin('projects', 'projects.id', 'project_files.project_id')
      .selectAll('project_files')
      .select(duplicateOf)
      .where('project_files.deleted_at', 'is', null)
      .where('projects.deleted_at', 'is', null);
    if (scope !== 'all') query = query.where('project_files.company_id', '=', scope);
    return query;
  }

  /** The rejected file of the project an upload may name in `replaces` (issue 35), or undefined. */
  findReplaceable(projectId: number, fileId: number): Promise<{ id: number } | undefined> {
    return findReplaceable(this.db, projectId, fileId);
  }

  find(id: number, scope: Scope): Promise<FileRow | undefined> {
    return this.live(scope).where('project_files.id', '=', id).executeTakeFirst();
  }

  /** Live files by id within `scope` (the reviewers' inbox reads a page of ids first), in no order. */
  findMany(ids: number[], scope: Scope): Promise<FileRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.live(scope).where('project_files.id', 'in', ids).execute();
  }

  listForProject(projectId: number, scope: Scope): Promise<FileRow[]> {
    return this.live(scope).where('project_files.project_id', '=', projectId).orderBy('project_files.id', 'desc').execute();
  }

  /**
   * One page of a project's live files, searched by name, filtered by status and sorted by a
   * column, with the number of every match. Each sort has an index in the same order (migration
   * 008), ties broken by id in the same direction, so pages never overlap or skip a row.
   */
  async findInProject(projectId: number, scope: Scope, find: FileFind): Promise<{ rows: FileRow[]; total: number }> {
    const { rows, count } = this.findQueries(projectId, scope, find);
    const [page, total] = await Promise.all([rows.execute(), count.executeTakeFirstOrThrow()]);
    return { rows: page, total: Number(total.n) };
  }

  /** The two queries behind findInProject, apart so that their plans can be checked (EXPLAIN). */
  findQueries(projectId: number, scope: Scope, find: FileFind) {
    let query = this.live(scope).where('project_files.project_id', '=', projectId);
    if (find.q) query = query.where(containsText(sql.ref('project_files.file'), find.q));
    if (find.status) query = query.where('project_files.processing_status', 'in', find.status);
    if (find.review) query = query.where('project_files.review_state', 'in', find.review);
    const count = query.clearSelect().select((eb) => eb.fn.countAll<number | string>().as('n'));
    const { order } = find;
    const sorted =
      find.sort === 'file'
        ? query.orderBy(sql`lower(${sql.ref('project_files.file')})`, order)
        : find.sort
          ? query.orderBy(`project_files.${find.sort}`, order)
          : query;
    const rows = sorted.orderBy('project_files.id', find.sort ? order : 'desc').offset(find.offset).limit(find.limit);
    return { rows, count };
  }

  /**
   * Commits an upload: the file row appears, its pending record goes and its job is queued, in one
   * transaction, which `andThen` (the audit record of the upload) ends in, so it commits with the row.
   */
  commitUpload(
    file: NewFile,
    opts: CommitOptions = {},
  ): Promise<{ row: FileRow; job: JobRow | undefined }> {
    const { andThen, described, claimedBy } = opts;
    const committed = this.db.transaction().execute(async (trx) => {
      const now = nowIso();
      const [row] = await this.#prepared.rows<ProjectFileRow>('insertUpload', [...NEW_FILE_COLUMNS.map((column) => file[column] ?? null), now], (v) =>
        this.db
          .insertInto('project_files')
          .values({
            ...(Object.fromEntries(NEW_FILE_COLUMNS.map((column, i) => [column, v[i]])) as unknown as NewFile),
            created_at: v[NEW_FILE_COLUMNS.length]!,
            updated_at: v[NEW_FILE_COLUMNS.length]!,
            deleted_at: null,
            processing_status: 'pending',
            processing_error: null,
            processing_summary: null,
          })
          .returningAll(),
        trx,
      );
      if (row === undefined) throw new Error('the new file row was not returned');
      // The rejected file it answers becomes replaced with it, or the upload is refused (issue 35).
      if (row.replaces !== null) await markReplaced(trx, row);
      await this.#prepared.run('endPending', [file.storage_key], ([key]) => this.db.deleteFrom('pending_uploads').where('storage_key', '=', key!), trx);
      // In the same transaction, so no committed upload is ever left without its processing job.
      const job = await enqueueJob(trx, PROCESS_UPLOAD, { fileId: row.id, companyId: row.company_id, ...(described ? { described } : {}) }, {
        prepared: this.#prepared,
        ...(claimedBy ? { claimedBy } : {}),
      });
      const withDuplicate = await this.#withDuplicate(trx, row);
      await andThen?.(trx, row);
      return { row: withDuplicate, job, inserted: row };
    });
    return committed.then(({ row, job, inserted }) => {
      if (job !== undefined) this.#handOver(inserted);
      return { row, job };
    });
  }

  #handOver(row: ProjectFileRow): void {
    this.#handedOver.set(row.id, row);
    setImmediate(() => this.#handedOver.delete(row.id));
  }

  /** For the processing job: the file whatever its state, or undefined if it never existed. */
  async findForProcessing(id: number): Promise<(ProjectFileRow & { project_deleted_at: string | null }) | undefined> {
    // Two lookups by primary key rather than one join: SQLite compiled the joined statement anew
    // at every run, which cost more than both.
    let file = this.#handedOver.get(id);
    if (file !== undefined) this.#handedOver.delete(id);
    else [file] = await this.#prepared.rows<ProjectFileRow>('fileById', [id], ([fileId]) =>
      this.db.selectFrom('project_files').selectAll().where('id', '=', fileId as unknown as number),
    );
    if (file === undefined) return undefined;
    const [project] = await this.#prepared.rows<{ deleted_at: string | null }>('projectDeletedAt', [file.project_id], ([projectId]) =>
      this.db.selectFrom('projects').select('deleted_at').where('id', '=', projectId as unknown as number),
    );
    // As the join answered: nothing for a file whose project row is gone.
    return project && { ...file, project_deleted_at: project.deleted_at };
  }

  async setProcessing(
    id: number,
    state: { status: TProcessingStatus; error?: string | null; summary?: TProcessingSummary | null },
    db: Db = this.db,
  ): Promise<void> {
    const values = [state.status, state.error ?? null, state.summary ? JSON.stringify(state.summary) : null, id];
    await this.#prepared.run(
      'setProcessing',
      values,
      ([status, error, summary, fileId]) =>
        this.db
          .updateTable('project_files')
          .set({ processing_status: status as TProcessingStatus, processing_error: error!, processing_summary: summary! })
          .where('id', '=', fileId as unknown as number),
      db,
    );
  }

  /**
   * The file's object replaced by its de-identified copy (processing, issue 33): the row names the
   * new object, its size and SHA-256, and what de-identification found. The old object is the
   * caller's to delete once this is written.
   */
  async replaceObject(id: number, object: { storageKey: string; size: number; sha256: string }, outcome: string): Promise<void> {
    await this.db
      .updateTable('project_files')
      .set({ storage_key: object.storageKey, filesize: object.size, sha256: object.sha256, deid_outcome: outcome })
      .where('id', '=', id)
      .execute();
  }

  /** The virus scan's state of a file row (issue 37): waiting, or what it found, in the job's last transaction. */
  async setScan(id: number, scan: { status: TScanStatus; signature: string | null }, db: Db = this.db): Promise<void> {
    await db.updateTable('project_files').set({ scan_status: scan.status, scan_signature: scan.signature }).where('id', '=', id).execute();
  }

  /** What de-identification found for a file row (JSON), in the job's last transaction. */
  async setDeidOutcome(id: number, outcome: string, db: Db = this.db): Promise<void> {
    await db.updateTable('project_files').set({ deid_outcome: outcome }).where('id', '=', id).execute();
  }

  /** Every file the project ever had, deleted or not: what its deletion must stop working on. */
  async idsInProject(projectId: number): Promise<number[]> {
    const rows = await this.db.selectFrom('project_files').select('id').where('project_id', '=', projectId).execute();
    return rows.map((r) => r.id);
  }

  async softDelete(id: number): Promise<FileRow> {
    const now = nowIso();
    const row = await this.db
      .updateTable('project_files')
      .set({ deleted_at: now, updated_at: now })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.#withDuplicate(this.db, row);
  }

  async #withDuplicate(db: Db, row: ProjectFileRow): Promise<FileRow> {
    const [found] = await this.#prepared.rows(
      'duplicateOf',
      [row.id],
      ([id]) => this.db.selectFrom('project_files').select(duplicateOf).where('project_files.id', '=', id as unknown as number),
      db,
    );
    return { ...row, duplicate_of: found?.duplicate_of ?? null };
  }
}
