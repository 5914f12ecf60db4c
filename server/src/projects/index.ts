// What other features may use of projects: the access check on a project, and tenant scoping.
export type { ProjectsService } from './projects.service.js';
export type { Scope } from './projects.repository.js';
