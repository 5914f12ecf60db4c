import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import { PreparedQueries } from '../db/prepared-queries.js';
import type { ProjectRow } from '../db/schema.js';

export type Scope = number | 'all';

export class ProjectsRepository {
  // Every upload checks its project twice (before storing, and in the commit): built once
  // (db/prepared-queries.ts) rather than by Kysely each time.
  readonly #prepared: PreparedQueries;

  constructor(private readonly db: Db) {
    this.#prepared = new PreparedQueries(db);
  }

  private live(scope: Scope) {
    let query = this.db.selectFrom('projects').selectAll().where('deleted_at', 'is', null);
    if (scope !== 'all') query = query.where('company_id', '=', scope);
    return query;
  }

  /** A project that is not deleted and lies within `scope`; anything else is undefined. */
  async find(id: number, scope: Scope): Promise<ProjectRow | undefined> {
    const [row] =
      scope === 'all'
        ? await this.#prepared.rows<ProjectRow>('findAny', [id], ([projectId]) => this.live('all').where('id', '=', projectId as unknown as number))
        : await this.#prepared.rows<ProjectRow>('findInCompany', [scope, id], ([companyId, projectId]) =>
            this.live(companyId as unknown as number).where('id', '=', projectId as unknown as number),
          );
    return row;
  }

  /** Without a de-identification policy the project takes the column's default, 'off'. */
  create(
    row: { company_id: number; name: string; created_by: number | null },
    deidentification?: { profile: string; options: readonly string[] },
  ): Promise<ProjectRow> {
    const now = nowIso();
    const policy = deidentification ? { deid_profile: deidentification.profile, deid_options: JSON.stringify(deidentification.options) } : {};
    return this.db
      .insertInto('projects')
      .values({ ...row, ...policy, valid: 1, status: 'Pendant', created_at: now, updated_at: now, deleted_at: null })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  rename(id: number, name: string): Promise<ProjectRow> {
    return this.db
      .updateTable('projects')
      .set({ name, updated_at: nowIso() })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  softDelete(id: number): Promise<ProjectRow> {
    const now = nowIso();
    return this.db
      .updateTable('projects')
      .set({ deleted_at: now, updated_at: now })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }
}
