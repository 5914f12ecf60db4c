import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { CompanyRow } from '../db/schema.js';
import { containsText } from '../db/search.js';

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

  /** One page of companies by id, and how many match in all. */
  async page(q: string | undefined, order: 'asc' | 'desc', offset: number, limit: number): Promise<{ rows: CompanyRow[]; total: number }> {
    const text = q?.trim();
    const base = text ? this.db.selectFrom('companies').where((eb) => containsText(eb.ref('companyname'), text)) : this.db.selectFrom('companies');
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('id', order).offset(offset).limit(limit).execute(),
      base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  update(id: number, changes: { companyname?: string; quota_bytes?: number | null }): Promise<CompanyRow> {
    return this.db
      .updateTable('companies')
      .set({ ...changes, updated_at: nowIso() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** `quotaBytes`: its storage allowance, null for unlimited (DEFAULT_COMPANY_QUOTA_BYTES). */
  async create(companyname: string, quotaBytes: number | null = null): Promise<CompanyRow> {
    const now = nowIso();
    return this.db
      .insertInto('companies')
      .values({ companyname, quota_bytes: quotaBytes, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
  }
}
