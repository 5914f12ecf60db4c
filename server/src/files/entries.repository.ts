import type { TEntryKind } from '@portal/contract';
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { PreparedQueries } from '../db/prepared-queries.js';
import type { FileEntryRow, NewFileEntry } from '../db/schema.js';

export interface SeriesCount {
  study_instance_uid: string;
  study_date: string | null;
  study_description: string | null;
  series_instance_uid: string;
  modality: string | null;
  series_description: string | null;
  instances: number;
}

/** Every column an entry row is written with, in the order the prepared one-row insert takes them. */
const ENTRY_COLUMNS = [
  'file_id', 'company_id', 'seq', 'path', 'size', 'sha256', 'kind', 'reason', 'storage_key', 'storage_offset',
  'sop_instance_uid', 'sop_class_uid', 'study_instance_uid', 'series_instance_uid', 'modality', 'study_date',
  'study_description', 'series_description', 'transfer_syntax_uid', 'rows', 'columns', 'number_of_frames',
  'number_of_frames_text', 'patient_name', 'patient_id', 'accession_number', 'study_time', 'study_id',
  'referring_physician_name', 'patient_birth_date', 'patient_sex', 'series_number', 'instance_number',
  'scan_status', 'scan_signature',
] as const satisfies readonly (keyof NewFileEntry)[];

/** Rows of ~20 columns: 100 per statement stays far below either database's parameter limit. */
async function insertEntries(trx: Db, entries: readonly NewFileEntry[]): Promise<void> {
  for (let at = 0; at < entries.length; at += 100) {
    await trx
      .insertInto('file_entries')
      .values(entries.slice(at, at + 100))
      .onConflict((oc) => oc.columns(['file_id', 'seq']).doNothing())
      .execute();
  }
}

/**
 * Up to this many DICOM entries, a file's instances found elsewhere are asked one by one (lookups
 * by key); past it, in one joined query, whose planning then costs less than the lookups.
 */
const BY_KEY_MAX_INSTANCES = 16;

export class EntriesRepository {
  // The lookups a single upload's job makes, built once (db/prepared-queries.ts).
  readonly #prepared: PreparedQueries;

  constructor(private readonly db: Db) {
    this.#prepared = new PreparedQueries(db);
  }

  /**
   * Records entries once each, in one transaction (the caller's, when given): a job that runs again after a crash meets the
   * same (file, seq) and leaves them as they are.
   */
  async insertMany(entries: readonly NewFileEntry[], trx?: Db): Promise<void> {
    if (entries.length === 0) return;
    // A single DICOM upload's only row: one statement built once (a column it lacks is null, as
    // every optional column's default is), atomic without a transaction of its own.
    if (entries.length === 1) return this.#insertOne(entries[0]!, trx);
    if (trx !== undefined) return insertEntries(trx, entries);
    await this.db.transaction().execute((t) => insertEntries(t, entries));
  }

  async #insertOne(entry: NewFileEntry, trx?: Db): Promise<void> {
    await this.#prepared.run(
      'insertEntry',
      ENTRY_COLUMNS.map((column) => entry[column] ?? null),
      (v) =>
        this.db
          .insertInto('file_entries')
          .values(Object.fromEntries(ENTRY_COLUMNS.map((column, i) => [column, v[i]])) as unknown as NewFileEntry)
          .onConflict((oc) => oc.columns(['file_id', 'seq']).doNothing()),
      trx,
    );
  }

  /**
   * What the virus scan found in a file's entries (issue 37): how many are infected, the first
   * one's signature, and why the first one not scanned was not (an entry never scanned is not counted).
   */
  async scanFindings(fileId: number, trx: Db = this.db): Promise<{ infected: number; signature: string | null; notScanned: string | null }> {
    const rows = await trx
      .selectFrom('file_entries')
      .select(['scan_status', 'scan_signature', (eb) => eb.fn.countAll<number | string>().as('n'), (eb) => eb.fn.min('seq').as('first')])
      .where('file_id', '=', fileId)
      .where('scan_status', 'in', ['infected', 'not_scanned'])
      .groupBy(['scan_status', 'scan_signature'])
      .execute();
    const firstOf = (status: string) => rows.filter((r) => r.scan_status === status).sort((a, b) => Number(a.first) - Number(b.first))[0];
    const infected = rows.filter((r) => r.scan_status === 'infected').reduce((sum, r) => sum + Number(r.n), 0);
    return { infected, signature: firstOf('infected')?.scan_signature ?? null, notScanned: firstOf('not_scanned')?.scan_signature ?? null };
  }

  /** Entries are recorded in order, so this is also the last recorded seq. */
  recordedCount(fileId: number): Promise<number> {
    return this.count(fileId);
  }

  /** The objects recorded entries point to, with the size (and offset, for a range) each must have. */
  async storedObjects(fileId: number): Promise<{ storage_key: string; size: number; offset: number | null }[]> {
    const rows = await this.db
      .selectFrom('file_entries')
      .select(['storage_key', 'size', 'storage_offset'])
      .where('file_id', '=', fileId)
      .where('storage_key', 'is not', null)
      .execute();
    return rows.map((r) => ({ storage_key: r.storage_key!, size: Number(r.size), offset: r.storage_offset === null ? null : Number(r.storage_offset) }));
  }

  async deleteForFile(fileId: number): Promise<void> {
    await this.db.deleteFrom('file_entries').where('file_id', '=', fileId).execute();
  }

  page(fileId: number, opts: { offset: number; limit: number; kind?: TEntryKind }): Promise<FileEntryRow[]> {
    let query = this.db.selectFrom('file_entries').selectAll().where('file_id', '=', fileId);
    if (opts.kind) query = query.where('kind', '=', opts.kind);
    return query.orderBy('seq').offset(opts.offset).limit(opts.limit).execute();
  }

  /**
   * The entries of a file whose path is one of `paths` (its flagged instances: at most 500, the
   * report lists no more), in order. One query; there is no index on path, so it reads the file's
   * entries once (no sort, no migration needed): cheap beside sending them, as paging avoids.
   */
  async withPaths(fileId: number, paths: readonly string[], kind?: TEntryKind): Promise<FileEntryRow[]> {
    if (paths.length === 0) return [];
    let query = this.db.selectFrom('file_entries').selectAll().where('file_id', '=', fileId).where('path', 'in', paths);
    if (kind) query = query.where('kind', '=', kind);
    return query.orderBy('seq').execute();
  }

  /** A page of the other entries: those whose path is not one of `paths`. */
  pageWithoutPaths(fileId: number, paths: readonly string[], opts: { offset: number; limit: number; kind?: TEntryKind }): Promise<FileEntryRow[]> {
    let query = this.db.selectFrom('file_entries').selectAll().where('file_id', '=', fileId);
    if (paths.length > 0) query = query.where('path', 'not in', paths);
    if (opts.kind) query = query.where('kind', '=', opts.kind);
    return query.orderBy('seq').offset(opts.offset).limit(opts.limit).execute();
  }

  async count(fileId: number, kind?: TEntryKind): Promise<number> {
    let query = this.db
      .selectFrom('file_entries')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('file_id', '=', fileId);
    if (kind) query = query.where('kind', '=', kind);
    return Number((await query.executeTakeFirstOrThrow()).n);
  }

  /** Instances per series, with the study's and series' descriptive fields (first seen wins). */
  async seriesCounts(fileId: number): Promise<SeriesCount[]> {
    const rows = await this.db
      .selectFrom('file_entries')
      .select((eb) => [
        'study_instance_uid',
        'series_instance_uid',
        eb.fn.min('study_date').as('study_date'),
        eb.fn.min('study_description').as('study_description'),
        eb.fn.min('modality').as('modality'),
        eb.fn.min('series_description').as('series_description'),
        eb.fn.count<number | string>('sop_instance_uid').distinct().as('instances'),
      ])
      .where('file_id', '=', fileId)
      .where('kind', '=', 'dicom')
      .where('study_instance_uid', 'is not', null)
      .where('series_instance_uid', 'is not', null)
      .groupBy(['study_instance_uid', 'series_instance_uid'])
      .orderBy('study_instance_uid')
      .orderBy('series_instance_uid')
      .execute();
    return rows.map((r) => ({
      study_instance_uid: r.study_instance_uid!,
      series_instance_uid: r.series_instance_uid!,
      study_date: r.study_date,
      study_description: r.study_description,
      modality: r.modality,
      series_description: r.series_description,
      instances: Number(r.instances),
    }));
  }

  find(fileId: number, entryId: number): Promise<FileEntryRow | undefined> {
    return this.db
      .selectFrom('file_entries')
      .selectAll()
      .where('file_id', '=', fileId)
      .where('id', '=', entryId)
      .executeTakeFirst();
  }

  /**
   * How many of this file's instances some other live file of the project also holds: the summary's
   * `in_project` (shown apart from the sum). A file of a few instances (a single DICOM upload) asks
   * by key, each a lookup in one index: SQLite planned the joined query anew at every run (about
   * 0.6 ms, docs/performance.md, "SQLite statements: built once, planned once, run directly"). A
   * file of many asks the joined query once, where each instance is one lookup in the SOP index
   * inside the database.
   */
  async countInstancesElsewhere(fileId: number, projectId: number, db: Db = this.db): Promise<number> {
    // Not `distinct`: SQLite sorted them in a temporary tree, which cost more than the lookups.
    const rows = await this.#prepared.rows<{ sop_instance_uid: string }>(`instanceUids:${BY_KEY_MAX_INSTANCES + 1}`, [fileId], ([id]) =>
      this.db
        .selectFrom('file_entries')
        .select('sop_instance_uid')
        .where('file_id', '=', id as unknown as number)
        .where('kind', '=', sql.lit('dicom'))
        .where('sop_instance_uid', 'is not', null)
        .limit(sql.lit(BY_KEY_MAX_INSTANCES + 1)),
      db,
    );
    if (rows.length > BY_KEY_MAX_INSTANCES) return this.#countInstancesElsewhereJoined(fileId, projectId, db);
    const uids = new Set(rows.map((row) => row.sop_instance_uid));
    // Whether each other file holding one of them is a live file of this project, asked once per file.
    const live = new Map<number, boolean>();
    const liveInProject = async (otherId: number) => {
      let answer = live.get(otherId);
      if (answer === undefined) {
        const [file] = await this.#prepared.rows<{ project_id: number; deleted_at: string | null }>(
          'fileProject',
          [otherId],
          ([id]) => this.db.selectFrom('project_files').select(['project_id', 'deleted_at']).where('id', '=', id as unknown as number),
          db,
        );
        answer = file !== undefined && file.project_id === projectId && file.deleted_at === null;
        live.set(otherId, answer);
      }
      return answer;
    };
    let found = 0;
    for (const uid of uids) {
      const holders = await this.#prepared.rows<{ file_id: number }>('instanceHolders', [uid, fileId], ([sop, id]) =>
        this.db
          .selectFrom('file_entries')
          .select('file_id')
          .where('sop_instance_uid', '=', sop!)
          .where('kind', '=', sql.lit('dicom'))
          .where('file_id', '<>', id as unknown as number),
        db,
      );
      for (const { file_id: other } of holders) {
        if (await liveInProject(other)) {
          found += 1;
          break;
        }
      }
    }
    return found;
  }

  #countInstancesElsewhereJoined(fileId: number, projectId: number, db: Db): Promise<number> {
    return db
      .selectFrom('file_entries as e')
      .select((eb) => eb.fn.count<number | string>('e.sop_instance_uid').distinct().as('n'))
      .where('e.file_id', '=', fileId)
      .where('e.kind', '=', 'dicom')
      .where('e.sop_instance_uid', 'is not', null)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('file_entries as o')
            .innerJoin('project_files as f', 'f.id', 'o.file_id')
            .select('o.id')
            .whereRef('o.sop_instance_uid', '=', 'e.sop_instance_uid')
            .where('o.file_id', '<>', fileId)
            .where('o.kind', '=', 'dicom')
            .where('f.project_id', '=', projectId)
            .where('f.deleted_at', 'is', null),
        ),
      )
      .executeTakeFirstOrThrow()
      .then((row) => Number(row.n));
  }
}
