// What other features may use of companies: the repository (admin manages companies) and the presenter.
export type { CompaniesRepository } from './companies.repository.js';
export { presentCompany } from './company.presenter.js';
