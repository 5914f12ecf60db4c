// Series thumbnails (issue 34, item 3): the job that draws them, the route that serves them.
export { RENDER_THUMBNAILS, renderThumbnailsJob, type TThumbnailPayload } from './thumbnail-job.js';
export { ThumbnailsRepository } from './thumbnails.repository.js';
export { ThumbnailsService } from './thumbnails.service.js';
export { thumbnailsRoutes } from './thumbnails.routes.js';
