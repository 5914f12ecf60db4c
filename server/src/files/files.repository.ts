import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { ProjectFileRow } from '../db/schema.js';
import type { TProcessingStatus, TProcessingSummary } from '@portal/contract';
import { enqueueJob } from '../jobs/index.js';
import type { Scope } from '../projects/index.js';
import { PROCESS_UPLOAD } from './process-upload.job.js';

export interface NewFile {
  project_id: number;
  company_id: number;
  file: string;
  filesize: number;
  sha256: string;
  storage_key: string;
  kind: 'dicom' | 'archive';
  created_by: number | null;
}

export class FilesRepository {
  constructor(private readonly db: Db) {}

  /** Live files of live projects, within `scope`. */
  private live(scope: Scope) {
    let query = this.db
      .selectFrom('project_files')
      .innerJoin('projects', 'projects.id', 'project_files.project_id')
      .selectAll('project_files')
      .where('project_files.deleted_at', 'is', null)
      .where('projects.deleted_at', 'is', null);
    if (scope !== 'all') query = query.where('project_files.company_id', '=', scope);
    return query;
  }

  find(id: number, scope: Scope): Promise<ProjectFileRow | undefined> {
    return this.live(scope).where('project_files.id', '=', id).executeTakeFirst();
  }

  listForProject(projectId: number, scope: Scope): Promise<ProjectFileRow[]> {
    return this.live(scope).where('project_files.project_id', '=', projectId).orderBy('project_files.id', 'desc').execute();
  }

  /** Commits an upload: the file row appears and its pending record goes, in one transaction. */
  commitUpload(file: NewFile): Promise<ProjectFileRow> {
    return this.db.transaction().execute(async (trx) => {
      const now = nowIso();
      const row = await trx
        .insertInto('project_files')
        .values({
          ...file,
          created_at: now,
          updated_at: now,
          deleted_at: null,
          processing_status: 'pending',
          processing_error: null,
          processing_summary: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx.deleteFrom('pending_uploads').where('storage_key', '=', file.storage_key).execute();
      // In the same transaction, so no committed upload is ever left without its processing job.
      await enqueueJob(trx, PROCESS_UPLOAD, { fileId: row.id, companyId: row.company_id });
      return row;
    });
  }

  /** For the processing job: the file whatever its state, or undefined if it never existed. */
  findForProcessing(id: number): Promise<(ProjectFileRow & { project_deleted_at: string | null }) | undefined> {
    return this.db
      .selectFrom('project_files')
      .innerJoin('projects', 'projects.id', 'project_files.project_id')
      .selectAll('project_files')
      .select('projects.deleted_at as project_deleted_at')
      .where('project_files.id', '=', id)
      .executeTakeFirst();
  }

  async setProcessing(
    id: number,
    state: { status: TProcessingStatus; error?: string | null; summary?: TProcessingSummary | null },
  ): Promise<void> {
    await this.db
      .updateTable('project_files')
      .set({
        processing_status: state.status,
        processing_error: state.error ?? null,
        processing_summary: state.summary ? JSON.stringify(state.summary) : null,
      })
      .where('id', '=', id)
      .execute();
  }

  /** Every file the project ever had, deleted or not: what its deletion must stop working on. */
  async idsInProject(projectId: number): Promise<number[]> {
    const rows = await this.db.selectFrom('project_files').select('id').where('project_id', '=', projectId).execute();
    return rows.map((r) => r.id);
  }

  softDelete(id: number): Promise<ProjectFileRow> {
    const now = nowIso();
    return this.db
      .updateTable('project_files')
      .set({ deleted_at: now, updated_at: now })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }
}
