// Companies, managed by a SysAdmin only: their names and storage allowances.
import type { TCompany, TCreateCompany, TUpdateCompany } from '@portal/contract';
import type { Actor } from '../auth/index.js';
import { presentCompany } from '../companies/index.js';
import type { CompanyRow } from '../db/schema.js';
import { notFound } from '../errors/app-error.js';
import type { Services } from '../services.js';
import { requireSysAdmin } from './admin-access.js';
import { createCompany } from './user-admin.js';
import { paging, type ListQuery } from './users-admin.service.js';

export class CompaniesAdministration {
  constructor(private readonly services: Services) {}

  async list(actor: Actor, query: ListQuery) {
    requireSysAdmin(actor);
    const { page, perPage, offset, order } = paging(query);
    const { rows, total } = await this.services.repos.companies.page(query.q, order, offset, perPage);
    return { data: await this.#present(rows), page: { page, per_page: perPage, total } };
  }

  async create(actor: Actor, body: TCreateCompany) {
    requireSysAdmin(actor);
    return presentCompany(await createCompany(this.services, body.companyname), 0);
  }

  /** A new name, a new storage allowance (null: unlimited), or both; each change is audited. */
  async update(actor: Actor, id: number, body: TUpdateCompany): Promise<TCompany> {
    requireSysAdmin(actor);
    const company = await this.services.repos.companies.findById(id, 'all');
    if (!company) throw notFound('Company not found');
    const quota = company.quota_bytes === null ? null : Number(company.quota_bytes);
    const changes: { companyname?: string; quota_bytes?: number | null } = {};
    if (body.companyname !== undefined && body.companyname !== company.companyname) changes.companyname = body.companyname;
    if (body.quota_bytes !== undefined && body.quota_bytes !== quota) changes.quota_bytes = body.quota_bytes;
    if (Object.keys(changes).length === 0) return (await this.#present([company]))[0]!;
    const updated = await this.services.repos.companies.update(id, changes);
    await this.services.audit.record({
      action: 'company.changed',
      companyId: id,
      object: { type: 'company', id },
      details: {
        ...(changes.companyname !== undefined ? { from: company.companyname, to: updated.companyname } : {}),
        ...(changes.quota_bytes !== undefined ? { quota_bytes_from: quota, quota_bytes_to: changes.quota_bytes } : {}),
      },
    });
    return (await this.#present([updated]))[0]!;
  }

  async #present(rows: CompanyRow[]): Promise<TCompany[]> {
    const used = await this.services.allowance.quotas.usedBytes(rows.map((r) => r.id));
    return rows.map((row) => presentCompany(row, used.get(row.id) ?? 0));
  }
}
