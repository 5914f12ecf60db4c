// A series' thumbnail as a project shows it: the access rules of the caller's route (the Studies
// view's for its route, WADO-RS's for DICOMweb's), then the picture, or why there is none.
import { companyScope, type Action, type Actor } from '../auth/index.js';
import { notFound } from '../errors/app-error.js';
import type { ProjectsService } from '../projects/index.js';
import type { Storage } from '../storage/storage.js';
import type { ThumbnailsRepository } from './thumbnails.repository.js';

export type SeriesThumbnail =
  | { status: 'ready'; storageKey: string; mime: string; sha256: string; size: number }
  | { status: 'failed'; reason: string }
  | { status: 'pending' };

export const PENDING_WORDS = 'This series’ thumbnail is still being made: try again in a few seconds.';

/** Whether If-None-Match names this strong ETag (weak comparison, RFC 9110 §13.1.2). */
export function noneMatchHits(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = [header].flat().join(',');
  if (value.trim() === '*') return true;
  return value.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

export class ThumbnailsService {
  constructor(
    private readonly projects: ProjectsService,
    private readonly thumbnails: ThumbnailsRepository,
    private readonly storage: Storage,
  ) {}

  /** Another company's project, an unknown one or a series the project does not hold: 404 in words. */
  async find(actor: Actor, projectId: number, study: string, series: string, action: Action): Promise<SeriesThumbnail> {
    const project = await this.projects.require(actor, projectId, action);
    const scope = companyScope(actor);
    if (!(await this.thumbnails.seriesExists(project.id, scope, study, series))) {
      throw notFound('No series with this Series Instance UID is in this study of the project');
    }
    const row = await this.thumbnails.shown(project.id, scope, study, series);
    if (!row) return { status: 'pending' };
    if (row.status === 'failed' || row.storage_key === null) return { status: 'failed', reason: row.reason ?? 'No thumbnail could be made for this series.' };
    return { status: 'ready', storageKey: row.storage_key, mime: row.mime ?? 'image/jpeg', sha256: row.sha256 ?? '', size: Number(row.size ?? 0) };
  }

  open(thumbnail: Extract<SeriesThumbnail, { status: 'ready' }>) {
    return this.storage.get(thumbnail.storageKey);
  }
}
