import type { TCompany } from '@portal/contract';
import { companyScope, type Actor } from '../auth/index.js';
import { notFound } from '../errors/app-error.js';
import type { CompanyQuotas } from '../quota/index.js';
import type { CompaniesRepository } from './companies.repository.js';
import { presentCompany } from './company.presenter.js';

export class CompaniesService {
  constructor(
    private readonly companies: CompaniesRepository,
    private readonly quotas: CompanyQuotas,
  ) {}

  async get(actor: Actor, id: number): Promise<TCompany> {
    const row = await this.companies.findById(id, companyScope(actor));
    if (!row) throw notFound('Company not found');
    return presentCompany(row, (await this.quotas.usedBytes([row.id])).get(row.id) ?? 0);
  }
}
