// What other features may use of projects: the access check on a project, tenant scoping, and the
// events it announces.
export type { ProjectEvents } from './project-events.js';
export type { ProjectsService } from './projects.service.js';
export type { Scope } from './projects.repository.js';
