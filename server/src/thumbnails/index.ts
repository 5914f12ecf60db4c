// Series thumbnails (issue 34, item 3): what the composition root wires.
export { RENDER_THUMBNAILS } from './thumbnail-jobs.js';
export { ThumbnailRenderer, type RendererOptions } from './thumbnail-renderer.js';
export { renderThumbnailsJob, thumbnailKey, THUMBNAIL_MAX_SIDE } from './thumbnails.job.js';
export { ThumbnailsRepository } from './thumbnails.repository.js';
export { thumbnailsRoutes } from './thumbnails.routes.js';
export { ThumbnailsService } from './thumbnails.service.js';
