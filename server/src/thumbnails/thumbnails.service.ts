// Serving a series' thumbnail with the Studies view's rules: the project read as for its files
// (another company's is 404), the company's own files only, a deleted file's never.
import type { Readable } from 'node:stream';
import { companyScope, type Actor } from '../auth/index.js';
import { notFound } from '../errors/app-error.js';
import type { ProjectsService } from '../projects/index.js';
import type { Storage } from '../storage/storage.js';
import type { ThumbnailsRepository } from './thumbnails.repository.js';

export const NO_THUMBNAIL = 'This series has no thumbnail yet';

export type ThumbnailAnswer = { status: 304; etag: string } | { status: 200; etag: string; contentType: string; body: Readable };

export class ThumbnailsService {
  constructor(
    private readonly projects: ProjectsService,
    private readonly thumbnails: ThumbnailsRepository,
    private readonly storage: Storage,
  ) {}

  /** 404 with the reason in words when the series has only a placeholder, or nothing. */
  async get(actor: Actor, projectId: number, study: string, series: string, ifNoneMatch: string | undefined): Promise<ThumbnailAnswer> {
    const project = await this.projects.require(actor, projectId, 'read');
    const found = await this.thumbnails.served(project.id, companyScope(actor), study, series);
    if (!found) throw notFound(NO_THUMBNAIL);
    if (found.storage_key === null || found.etag === null || found.content_type === null) throw notFound(found.reason ?? NO_THUMBNAIL);
    if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === found.etag || tag.trim() === '*')) {
      return { status: 304, etag: found.etag };
    }
    return { status: 200, etag: found.etag, contentType: found.content_type, body: await this.storage.get(found.storage_key) };
  }
}
