// Companies, managed by a SysAdmin only.
import type { TCreateCompany } from '@portal/contract';
import type { Actor } from '../auth/index.js';
import { presentCompany } from '../companies/index.js';
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
    return { data: rows.map(presentCompany), page: { page, per_page: perPage, total } };
  }

  async create(actor: Actor, body: TCreateCompany) {
    requireSysAdmin(actor);
    return presentCompany(await createCompany(this.services, body.companyname));
  }

  async rename(actor: Actor, id: number, body: TCreateCompany) {
    requireSysAdmin(actor);
    const company = await this.services.repos.companies.findById(id, 'all');
    if (!company) throw notFound('Company not found');
    if (company.companyname === body.companyname) return presentCompany(company);
    const renamed = await this.services.repos.companies.rename(id, body.companyname);
    await this.services.audit.record({
      action: 'company.changed',
      companyId: id,
      object: { type: 'company', id },
      details: { from: company.companyname, to: renamed.companyname },
    });
    return presentCompany(renamed);
  }
}
