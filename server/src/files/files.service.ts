// A project's files as stored: listings, access, downloads and soft deletes (DESIGN §4, §6). How
// bytes become a file is uploads/.
import { LIST_PER_PAGE_DEFAULT, type TFilesList, type TFilesQuery, type TProjectFile } from '@portal/contract';
import { can, companyScope, reachesProject, type Actor } from '../auth/index.js';
import type { AuditActor, AuditTrail } from '../audit/index.js';
import type { ProjectFileRow } from '../db/schema.js';
import { forbidden, notFound } from '../errors/app-error.js';
import type { Announcer } from '../events/events.js';
import type { JobsRepository } from '../jobs/index.js';
import type { ProjectsService } from '../projects/index.js';
import type { FileEvents } from './file-events.js';
import { presentFile } from './file.presenter.js';
import { uploadSubject } from './file-jobs.js';
import type { FilesRepository } from './files.repository.js';
import { refuseInfectedFile } from './infected.js';

const NOT_FOUND = 'File not found';

export class FilesService {
  constructor(
    private readonly files: FilesRepository,
    private readonly jobs: JobsRepository,
    private readonly projects: ProjectsService,
    private readonly audit: AuditTrail,
    private readonly events: Announcer<FileEvents>,
  ) {}

  /** A deleted project's files are processed no further (its 'project.removed'). */
  async projectRemoved(projectId: number): Promise<void> {
    await this.jobs.cancel((await this.files.idsInProject(projectId)).map(uploadSubject));
  }

  async list(actor: Actor, projectId: number): Promise<TProjectFile[]> {
    const project = await this.projects.require(actor, projectId, 'read');
    return (await this.files.listForProject(project.id, companyScope(actor))).map(presentFile);
  }

  /** A page of the project's files as the files table asks for it: searched, filtered, sorted by the server. */
  async find(actor: Actor, projectId: number, find: TFilesQuery): Promise<TFilesList> {
    const project = await this.projects.require(actor, projectId, 'read');
    const page = find.page ?? 1;
    const perPage = find.per_page ?? LIST_PER_PAGE_DEFAULT;
    const { rows, total } = await this.files.findInProject(project.id, companyScope(actor), {
      q: find.q,
      status: find.status,
      review: find.review,
      sort: find.sort,
      order: find.order ?? (find.sort ? 'asc' : 'desc'),
      offset: (page - 1) * perPage,
      limit: perPage,
    });
    return { data: rows.map(presentFile), page: { page, per_page: perPage, total } };
  }

  /** A live file the actor may do `action` on: 404 outside the actor's companies, 403 when not allowed. */
  async require(actor: Actor, fileId: number, action: 'read' | 'download' | 'delete'): Promise<ProjectFileRow> {
    const row = await this.files.find(fileId, companyScope(actor));
    if (!row || !reachesProject(actor, row.project_id)) throw notFound(NOT_FOUND);
    if (!can(actor, action, row.company_id)) throw forbidden();
    return row;
  }

  /** A file about to be sent to the actor: its download is recorded when bytes go out (not for a HEAD). */
  async download(actor: Actor, fileId: number, sendsBytes: boolean): Promise<ProjectFileRow> {
    const row = await this.require(actor, fileId, 'download');
    refuseInfectedFile(row);
    if (sendsBytes) await this.recordDownload(row);
    return row;
  }

  /** `by`: who, when it is not the request's signed-in user (a download link's creator). */
  async recordDownload(row: ProjectFileRow, by?: AuditActor): Promise<void> {
    await this.audit.record({
      action: 'file.downloaded',
      companyId: row.company_id,
      object: { type: 'file', id: row.id },
      details: { name: row.file, size: Number(row.filesize), sha256: row.sha256 },
      actor: by,
    });
  }

  /** An entry of an upload about to be sent to the actor, whose access to `file` was checked. */
  async recordEntryDownload(file: ProjectFileRow, entry: { id: number; path: string; size: number | string; sha256: string | null }, by?: AuditActor): Promise<void> {
    await this.audit.record({
      actor: by,
      action: 'entry.downloaded',
      companyId: file.company_id,
      object: { type: 'entry', id: entry.id },
      details: { file_id: file.id, path: entry.path, size: Number(entry.size), sha256: entry.sha256 },
    });
  }

  async remove(actor: Actor, fileId: number): Promise<TProjectFile> {
    const row = await this.require(actor, fileId, 'delete');
    const deleted = await this.files.softDelete(row.id);
    await this.jobs.cancel([uploadSubject(row.id)]);
    // Recorded before the reactions run: with no retention one of them queues the purge, whose
    // own row must follow this one.
    await this.audit.record({
      action: row.kind === 'folder' ? 'delivery.deleted' : 'file.deleted',
      companyId: row.company_id,
      object: { type: 'file', id: row.id },
      details: { name: row.file, project_id: row.project_id },
    });
    await this.events.emit('file.removed', row.id);
    return presentFile(deleted);
  }
}
