// A project's de-identification policy and key (issue 33): what the upload paths and the server's
// own de-identification ask, and the routes.
export { DeidentificationService } from './deidentification.service.js';
export { DeidentificationRepository } from './deidentification.repository.js';
export { ProjectKeys, PROJECT_KEY_BYTES } from './project-keys.js';
export { deidentificationRoutes } from './deidentification.routes.js';
