// An API token may be limited to some projects (issue 37). The services that resolve a project, a
// file or a delivery ask here, beside the company scope, so another project answers 404 exactly as
// another company's does.
import type { Actor } from './permissions.js';

export function reachesProject(actor: Actor, projectId: number): boolean {
  return actor.projectIds === undefined || actor.projectIds.includes(projectId);
}
