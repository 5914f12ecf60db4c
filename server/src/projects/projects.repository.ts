import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { ProjectRow } from '../db/schema.js';

export type Scope = number | 'all';

export class ProjectsRepository {
  constructor(private readonly db: Db) {}

  private live(scope: Scope) {
    let query = this.db.selectFrom('projects').selectAll().where('deleted_at', 'is', null);
    if (scope !== 'all') query = query.where('company_id', '=', scope);
    return query;
  }

  /** A project that is not deleted and lies within `scope`; anything else is undefined. */
  find(id: number, scope: Scope): Promise<ProjectRow | undefined> {
    return this.live(scope).where('id', '=', id).executeTakeFirst();
  }

  list(scope: Scope, companyId?: number): Promise<ProjectRow[]> {
    let query = this.live(scope);
    if (companyId !== undefined) query = query.where('company_id', '=', companyId);
    return query.orderBy('id', 'desc').execute();
  }

  create(row: { company_id: number; name: string; created_by: number | null }): Promise<ProjectRow> {
    const now = nowIso();
    return this.db
      .insertInto('projects')
      .values({ ...row, valid: 1, status: 'Pendant', created_at: now, updated_at: now, deleted_at: null })
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
