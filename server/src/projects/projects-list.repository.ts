// The projects list (issue 36, item 4): each project with its company's name, its live uploads'
// count and newest upload, and its distinct studies, searched, sorted and paged by the database.
// The counts are grouped once per list rather than once per project.
import { sql, type RawBuilder } from 'kysely';
import type { TProjectSort, TSortOrder } from '@portal/contract';
import type { Db } from '../db/database.js';
import type { ProjectRow } from '../db/schema.js';
import { containsText } from '../db/search.js';
import type { Scope } from './projects.repository.js';

export interface ProjectFind {
  q?: string | undefined;
  companyId?: number | undefined;
  /** Only these projects: an API token limited to them (issue 37). */
  projectIds?: readonly number[] | undefined;
  /** null: newest first (the spec's order). */
  sort: TProjectSort | null;
  order: TSortOrder;
  offset?: number;
  limit?: number;
}

export interface ListedProjectRow extends ProjectRow {
  companyname: string;
  files: number;
  studies: number;
  last_upload_at: string | null;
}

/** What each sort orders by, in the outer query's names. Names are compared without case. */
const SORT_VALUE: Record<TProjectSort, RawBuilder<unknown>> = {
  name: sql`lower(p.name)`,
  created_at: sql`p.created_at`,
  updated_at: sql`p.updated_at`,
  files: sql`coalesce(fs.files, 0)`,
  studies: sql`coalesce(ss.studies, 0)`,
  last_upload_at: sql`fs.last_upload_at`,
  company: sql`lower(c.companyname)`,
};

export class ProjectsListRepository {
  constructor(private readonly db: Db) {}

  private matching(scope: Scope, find: Pick<ProjectFind, 'q' | 'companyId' | 'projectIds'>) {
    let query = this.db.selectFrom('projects as p').where('p.deleted_at', 'is', null);
    if (scope !== 'all') query = query.where('p.company_id', '=', scope);
    if (find.projectIds !== undefined) query = find.projectIds.length === 0 ? query.where(sql<boolean>`false`) : query.where('p.id', 'in', [...find.projectIds]);
    if (find.companyId !== undefined) query = query.where('p.company_id', '=', find.companyId);
    if (find.q) query = query.where(containsText(sql.ref('p.name'), find.q));
    return query;
  }

  /** Live uploads per project: how many, and when the newest arrived. */
  private fileStats(scope: Scope) {
    let query = this.db
      .selectFrom('project_files as f')
      .where('f.deleted_at', 'is', null)
      .groupBy('f.project_id')
      .select((eb) => ['f.project_id', eb.fn.countAll<number | string>().as('files'), eb.fn.max('f.created_at').as('last_upload_at')]);
    if (scope !== 'all') query = query.where('f.company_id', '=', scope);
    return query;
  }

  /** Distinct studies per project, by the rule of files/live-instances.ts (the Studies view's count). */
  private studyStats(scope: Scope) {
    let query = this.db
      .selectFrom('file_entries as e')
      .innerJoin('project_files as f', 'f.id', 'e.file_id')
      .where('f.deleted_at', 'is', null)
      .where('e.kind', '=', 'dicom')
      .where('e.study_instance_uid', 'is not', null)
      .where('e.sop_instance_uid', 'is not', null)
      .groupBy('f.project_id')
      .select((eb) => ['f.project_id', eb.fn.count<number | string>('e.study_instance_uid').distinct().as('studies')]);
    if (scope !== 'all') query = query.where('f.company_id', '=', scope).where('e.company_id', '=', scope);
    return query;
  }

  /** One page (or, without offset and limit, all) of the projects within `scope` that match, and how many match. */
  async find(scope: Scope, find: ProjectFind): Promise<{ rows: ListedProjectRow[]; total: number }> {
    const matching = this.matching(scope, find);
    const sortValue = find.sort ? SORT_VALUE[find.sort] : null;
    let query = matching
      .innerJoin('companies as c', 'c.id', 'p.company_id')
      .leftJoin(this.fileStats(scope).as('fs'), 'fs.project_id', 'p.id')
      .leftJoin(this.studyStats(scope).as('ss'), 'ss.project_id', 'p.id')
      .selectAll('p')
      .select([
        'c.companyname',
        sql<number | string>`coalesce(fs.files, 0)`.as('files'),
        sql<number | string>`coalesce(ss.studies, 0)`.as('studies'),
        sql<string | null>`fs.last_upload_at`.as('last_upload_at'),
      ]);
    if (sortValue) {
      // Projects without a value (no upload yet) come last in either order, the same on both engines;
      // ties broken by id in the same direction, so pages never overlap or skip a row.
      query = query.orderBy(sql`${sortValue} is null`).orderBy(sortValue, find.order).orderBy('p.id', find.order);
    } else {
      query = query.orderBy('p.id', find.order);
    }
    if (find.limit !== undefined) query = query.offset(find.offset ?? 0).limit(find.limit);
    const count = matching.select((eb) => eb.fn.countAll<number | string>().as('n'));
    const [rows, total] = await Promise.all([query.execute(), count.executeTakeFirstOrThrow()]);
    return {
      rows: rows.map((row) => ({
        ...row,
        files: Number(row.files),
        studies: Number(row.studies),
        last_upload_at: row.last_upload_at ?? null,
      })),
      total: Number(total.n),
    };
  }

  /** The companies within `scope` (every one, or the own), by name: what the list can be filtered by. */
  companies(scope: Scope): Promise<Array<{ id: number; companyname: string }>> {
    let query = this.db.selectFrom('companies').select(['id', 'companyname']);
    if (scope !== 'all') query = query.where('id', '=', scope);
    return query.orderBy(sql`lower(companyname)`).orderBy('id').execute();
  }
}
