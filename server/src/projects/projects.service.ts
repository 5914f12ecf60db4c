import {
  checkProjectName,
  LIST_PER_PAGE_DEFAULT,
  type TProjectCompany,
  type TProjectsList,
  type TProjectsQuery,
  type TCreateProject,
  type TDeidentificationOption,
  type TDeidentificationProfile,
  type TProject,
  type TUpdateProject,
} from '@portal/contract';
import { can, companyScope, reachesProject, type Action, type Actor } from '../auth/index.js';
import type { AuditTrail } from '../audit/index.js';
import type { ProjectRow } from '../db/schema.js';
import type { Announcer } from '../events/events.js';
import { forbidden, notFound, unprocessable } from '../errors/app-error.js';
import type { ProjectEvents } from './project-events.js';
import { presentListedProject, presentProject } from './project.presenter.js';
import type { ProjectsListRepository } from './projects-list.repository.js';
import type { ProjectsRepository } from './projects.repository.js';

const NOT_FOUND = 'Project not found';

function validName(raw: string): string {
  const checked = checkProjectName(raw);
  if ('error' in checked) throw unprocessable(checked.error);
  return checked.name;
}

export class ProjectsService {
  constructor(
    private readonly projects: ProjectsRepository,
    private readonly audit: AuditTrail,
    /** The de-identification policy a new project takes (DEIDENTIFICATION_DEFAULT). */
    private readonly newProjectDeidentification: { profile: TDeidentificationProfile; options: readonly TDeidentificationOption[] },
    private readonly events: Announcer<ProjectEvents>,
    private readonly listed: ProjectsListRepository,
  ) {}

  /**
   * The project if the actor may do `action` on it: outside the actor's companies it does not
   * exist (404); visible but not allowed is 403.
   */
  async require(actor: Actor, id: number, action: Action): Promise<ProjectRow> {
    const project = await this.projects.find(id, companyScope(actor));
    if (!project || !reachesProject(actor, project.id)) throw notFound(NOT_FOUND);
    if (!can(actor, action, project.company_id)) throw forbidden();
    return project;
  }

  /**
   * The projects list. Without finding parameters (`find` empty) every project, newest first, and
   * no page: the spec's call. A company filter outside the actor's companies finds nothing.
   */
  async list(actor: Actor, companyId: number | undefined, find: TProjectsQuery): Promise<TProjectsList> {
    const scope = companyScope(actor);
    if (!Object.values(find).some((value) => value !== undefined)) {
      const { rows } = await this.listed.find(scope, { companyId, projectIds: actor.projectIds, sort: null, order: 'desc' });
      return { data: rows.map(presentListedProject) };
    }
    const page = find.page ?? 1;
    const perPage = find.per_page ?? LIST_PER_PAGE_DEFAULT;
    const { rows, total } = await this.listed.find(scope, {
      q: find.q,
      companyId,
      projectIds: actor.projectIds,
      sort: find.sort ?? null,
      order: find.order ?? (find.sort ? 'asc' : 'desc'),
      offset: (page - 1) * perPage,
      limit: perPage,
    });
    return { data: rows.map(presentListedProject), page: { page, per_page: perPage, total } };
  }

  /** The companies the actor's projects list can be filtered by: every one for SysUser and SysAdmin, else the own. */
  companies(actor: Actor): Promise<TProjectCompany[]> {
    return this.listed.companies(companyScope(actor));
  }

  async get(actor: Actor, id: number): Promise<TProject> {
    return presentProject(await this.require(actor, id, 'read'));
  }

  async create(actor: Actor, body: TCreateProject): Promise<TProject> {
    if (!can(actor, 'create', actor.companyId)) throw forbidden();
    const name = validName(body.name);
    const project = await this.projects.create({ company_id: actor.companyId, name, created_by: actor.userId }, this.newProjectDeidentification);
    await this.audit.record({ action: 'project.created', companyId: project.company_id, object: { type: 'project', id: project.id }, details: { name } });
    return presentProject(project);
  }

  async update(actor: Actor, id: number, body: TUpdateProject): Promise<TProject> {
    const project = await this.require(actor, id, 'update');
    if (body.id !== undefined && body.id !== project.id) throw unprocessable('The project id in the body does not match the address');
    const renamed = await this.projects.rename(project.id, validName(body.name));
    if (renamed.name !== project.name) {
      await this.audit.record({ action: 'project.renamed', companyId: project.company_id, object: { type: 'project', id: project.id }, details: { from: project.name, to: renamed.name } });
    }
    return presentProject(renamed);
  }

  async remove(actor: Actor, id: number): Promise<TProject> {
    const project = await this.require(actor, id, 'delete');
    const deleted = await this.projects.softDelete(project.id);
    // Recorded before the reactions run: with no retention one of them queues the purge of its
    // files, whose rows must follow this one.
    await this.audit.record({ action: 'project.deleted', companyId: project.company_id, object: { type: 'project', id: project.id }, details: { name: project.name } });
    await this.events.emit('project.removed', project.id);
    return presentProject(deleted);
  }
}
