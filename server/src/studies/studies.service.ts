// The project's studies (DESIGN §10): what arrived, across every live upload, each instance once.
import { LIST_PER_PAGE_DEFAULT, type TProjectStudies, type TStudiesQuery } from '@portal/contract';
import { companyScope, type Actor } from '../auth/index.js';
import type { ProjectsService } from '../projects/index.js';
import { presentStudies } from './study.presenter.js';
import type { StudiesRepository } from './studies.repository.js';

export class StudiesService {
  constructor(
    private readonly projects: ProjectsService,
    private readonly studies: StudiesRepository,
  ) {}

  /** Access as for the project's files: another company's project is 404, SysUser/SysAdmin read all. */
  async list(actor: Actor, projectId: number, query: TStudiesQuery): Promise<TProjectStudies> {
    const project = await this.projects.require(actor, projectId, 'read');
    const scope = companyScope(actor);
    const page = query.page ?? 1;
    const perPage = query.per_page ?? LIST_PER_PAGE_DEFAULT;
    const { rows, total } = await this.studies.page(project.id, scope, {
      q: query.q,
      // Without a sort key: the newest study first.
      sort: query.sort ?? 'study_date',
      order: query.order ?? (query.sort ? 'asc' : 'desc'),
      offset: (page - 1) * perPage,
      limit: perPage,
    });
    const uids = rows.map((r) => r.study_instance_uid);
    const [series, sources] = await Promise.all([this.studies.series(project.id, scope, uids), this.studies.sources(project.id, scope, uids)]);
    return { data: presentStudies(rows, series, sources), page: { page, per_page: perPage, total } };
  }
}
