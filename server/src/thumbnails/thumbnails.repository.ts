// Series thumbnails' rows (migration 028): written by the job, read by the route, removed with
// their file's bytes by the purge.
import type { Db } from '../db/database.js';

type Scope = number | 'all';

export interface SeriesInstance {
  study_instance_uid: string;
  series_instance_uid: string;
  path: string;
  storage_key: string;
  storage_offset: number | null;
  size: number;
}

export interface NewThumbnail {
  study_instance_uid: string;
  series_instance_uid: string;
  storage_key: string | null;
  content_type: string | null;
  etag: string | null;
  size: number | null;
  reason: string | null;
}

export interface ServedThumbnail {
  storage_key: string | null;
  content_type: string | null;
  etag: string | null;
  reason: string | null;
}

export class ThumbnailsRepository {
  constructor(private readonly db: Db) {}

  /** The file, when it is live, processed, and in a live project. */
  async readyFile(fileId: number): Promise<{ id: number; company_id: number; project_id: number } | undefined> {
    return this.db
      .selectFrom('project_files as f')
      .innerJoin('projects as p', 'p.id', 'f.project_id')
      .where('f.id', '=', fileId)
      .where('f.deleted_at', 'is', null)
      .where('p.deleted_at', 'is', null)
      .where('f.processing_status', '=', 'ready')
      .select(['f.id', 'f.company_id', 'f.project_id'])
      .executeTakeFirst();
  }

  /** The file's stored DICOM instances with a series, by series and path (the order the middle one is taken in). */
  async instancesOf(fileId: number, companyId: number): Promise<SeriesInstance[]> {
    const rows = await this.db
      .selectFrom('file_entries')
      .where('file_id', '=', fileId)
      .where('company_id', '=', companyId)
      .where('kind', '=', 'dicom')
      .where('study_instance_uid', 'is not', null)
      .where('series_instance_uid', 'is not', null)
      .where('storage_key', 'is not', null)
      .select(['study_instance_uid', 'series_instance_uid', 'path', 'storage_key', 'storage_offset', 'size'])
      .orderBy('series_instance_uid')
      .orderBy('path')
      .execute();
    return rows.map((r) => ({
      study_instance_uid: r.study_instance_uid!,
      series_instance_uid: r.series_instance_uid!,
      path: r.path,
      storage_key: r.storage_key!,
      storage_offset: r.storage_offset === null ? null : Number(r.storage_offset),
      size: Number(r.size),
    }));
  }

  /** The keys a file's earlier run stored (a rerun replaces them). */
  async keysOf(fileId: number): Promise<string[]> {
    const rows = await this.db.selectFrom('series_thumbnails').where('file_id', '=', fileId).where('storage_key', 'is not', null).select('storage_key').execute();
    return rows.map((r) => r.storage_key!);
  }

  async replace(file: { id: number; company_id: number; project_id: number }, rows: NewThumbnail[], now: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('series_thumbnails').where('file_id', '=', file.id).execute();
      if (rows.length === 0) return;
      await trx
        .insertInto('series_thumbnails')
        .values(rows.map((r) => ({ ...r, file_id: file.id, company_id: file.company_id, project_id: file.project_id, created_at: now })))
        .execute();
    });
  }

  /**
   * A series' thumbnail from a live file of the project, within `scope`: an image before a
   * placeholder, then the newest file's.
   */
  async served(projectId: number, scope: Scope, study: string, series: string): Promise<ServedThumbnail | undefined> {
    let query = this.db
      .selectFrom('series_thumbnails as t')
      .innerJoin('project_files as f', 'f.id', 't.file_id')
      .where('t.project_id', '=', projectId)
      .where('f.project_id', '=', projectId)
      .where('t.study_instance_uid', '=', study)
      .where('t.series_instance_uid', '=', series)
      .where('f.deleted_at', 'is', null);
    if (scope !== 'all') query = query.where('t.company_id', '=', scope).where('f.company_id', '=', scope);
    return query
      .select(['t.storage_key', 't.content_type', 't.etag', 't.reason'])
      .orderBy((eb) => eb.case().when('t.storage_key', 'is', null).then(1).else(0).end())
      .orderBy('t.file_id', 'desc')
      .executeTakeFirst();
  }
}
