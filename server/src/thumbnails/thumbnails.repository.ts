// What thumbnails read and write: a processed file's stored DICOM instances by series, its
// thumbnail rows, and the thumbnail a project shows for one of its series.
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { SeriesThumbnailTable } from '../db/schema.js';
import { liveInstances } from '../files/index.js';
import { enqueueJob } from '../jobs/index.js';
import type { Scope } from '../projects/index.js';
import { RENDER_THUMBNAILS } from './thumbnail-jobs.js';

export interface SourceInstance {
  study: string;
  series: string;
  sop: string;
  storageKey: string;
  offset: number;
  size: number;
  transferSyntax: string | null;
  frames: number | null;
  /** Rows (0028,0010): null when the instance carries no picture (a report, a plan). */
  rows: number | null;
}

export type ThumbnailOutcome =
  | { status: 'ready'; sop: string; storageKey: string; mime: string; sha256: string; size: number; width: number; height: number }
  | { status: 'failed'; sop: string | null; reason: string };

export type ShownThumbnail = Pick<SeriesThumbnailTable, 'status' | 'reason' | 'storage_key' | 'mime' | 'sha256' | 'size'>;

export class ThumbnailsRepository {
  constructor(private readonly db: Db) {}

  async queue(fileId: number, companyId: number): Promise<void> {
    await enqueueJob(this.db, RENDER_THUMBNAILS, { fileId, companyId });
  }

  /** The file as the job needs it; undefined when it was deleted meanwhile (nothing to render for). */
  async liveFile(fileId: number): Promise<{ id: number; company_id: number; project_id: number } | undefined> {
    return this.db
      .selectFrom('project_files as f')
      .innerJoin('projects as p', 'p.id', 'f.project_id')
      .select(['f.id', 'f.company_id', 'f.project_id'])
      .where('f.id', '=', fileId)
      .where('f.deleted_at', 'is', null)
      .where('p.deleted_at', 'is', null)
      .executeTakeFirst();
  }

  /** The file's stored DICOM instances, by series, each series in instance order (numbered first, by number). */
  async instancesOf(fileId: number): Promise<SourceInstance[]> {
    const rows = await this.db
      .selectFrom('file_entries as e')
      .select(['e.study_instance_uid', 'e.series_instance_uid', 'e.sop_instance_uid', 'e.storage_key', 'e.storage_offset', 'e.size', 'e.transfer_syntax_uid', 'e.number_of_frames', 'e.rows'])
      .where('e.file_id', '=', fileId)
      .where('e.kind', '=', 'dicom')
      .where('e.study_instance_uid', 'is not', null)
      .where('e.series_instance_uid', 'is not', null)
      .where('e.sop_instance_uid', 'is not', null)
      .where('e.storage_key', 'is not', null)
      // An instance the virus scan found infected is never handed to the renderer's decoders (issue 37).
      .where((eb) => eb.or([eb('e.scan_status', 'is', null), eb('e.scan_status', '!=', 'infected')]))
      .orderBy('e.series_instance_uid')
      .orderBy(sql`e.instance_number is null`)
      .orderBy('e.instance_number')
      .orderBy('e.seq')
      .execute();
    return rows.map((r) => ({
      study: r.study_instance_uid!,
      series: r.series_instance_uid!,
      sop: r.sop_instance_uid!,
      storageKey: r.storage_key!,
      offset: r.storage_offset === null ? 0 : Number(r.storage_offset),
      size: Number(r.size),
      transferSyntax: r.transfer_syntax_uid,
      frames: r.number_of_frames,
      rows: r.rows,
    }));
  }

  /** The series of the file that already have a row (an earlier run of the job wrote them). */
  async doneSeries(fileId: number): Promise<Set<string>> {
    const rows = await this.db.selectFrom('series_thumbnails').select('series_instance_uid').where('file_id', '=', fileId).execute();
    return new Set(rows.map((r) => r.series_instance_uid));
  }

  async record(file: { id: number; company_id: number; project_id: number }, series: { study: string; series: string }, outcome: ThumbnailOutcome): Promise<void> {
    const ready = outcome.status === 'ready' ? outcome : null;
    await this.db
      .insertInto('series_thumbnails')
      .values({
        file_id: file.id,
        company_id: file.company_id,
        project_id: file.project_id,
        study_instance_uid: series.study,
        series_instance_uid: series.series,
        sop_instance_uid: outcome.sop,
        status: outcome.status,
        reason: outcome.status === 'failed' ? outcome.reason.slice(0, 512) : null,
        storage_key: ready?.storageKey ?? null,
        mime: ready?.mime ?? null,
        sha256: ready?.sha256 ?? null,
        size: ready?.size ?? null,
        width: ready?.width ?? null,
        height: ready?.height ?? null,
        created_at: nowIso(),
      })
      .execute();
  }

  /** Whether the series has a live instance in the project, within the caller's scope. */
  async seriesExists(projectId: number, scope: Scope, study: string, series: string): Promise<boolean> {
    const row = await liveInstances(this.db, projectId, scope)
      .where('e.study_instance_uid', '=', study)
      .where('e.series_instance_uid', '=', series)
      .select('e.id')
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The series' thumbnail from a live upload of the project: a ready one first, then the oldest. */
  async shown(projectId: number, scope: Scope, study: string, series: string): Promise<ShownThumbnail | undefined> {
    let query = this.db
      .selectFrom('series_thumbnails as t')
      .innerJoin('project_files as f', 'f.id', 't.file_id')
      .select(['t.status', 't.reason', 't.storage_key', 't.mime', 't.sha256', 't.size'])
      .where('t.project_id', '=', projectId)
      .where('f.project_id', '=', projectId)
      .where('f.deleted_at', 'is', null)
      .where('t.study_instance_uid', '=', study)
      .where('t.series_instance_uid', '=', series);
    if (scope !== 'all') query = query.where('t.company_id', '=', scope).where('f.company_id', '=', scope);
    return query.orderBy(sql`case when t.status = 'ready' then 0 else 1 end`).orderBy('t.file_id').limit(1).executeTakeFirst();
  }
}
