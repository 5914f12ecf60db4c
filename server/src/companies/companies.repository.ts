import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { CompanyRow } from '../db/schema.js';

export class CompaniesRepository {
  constructor(private readonly db: Db) {}

  /** `scope` is the actor's company or 'all'; a company outside it is never read. */
  findById(id: number, scope: number | 'all'): Promise<CompanyRow | undefined> {
    let query = this.db.selectFrom('companies').selectAll().where('id', '=', id);
    if (scope !== 'all') query = query.where('id', '=', scope);
    return query.executeTakeFirst();
  }

  list(): Promise<CompanyRow[]> {
    return this.db.selectFrom('companies').selectAll().orderBy('id').execute();
  }

  async create(companyname: string): Promise<CompanyRow> {
    const now = nowIso();
    return this.db
      .insertInto('companies')
      .values({ companyname, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
  }
}
