import type { TCompany } from '@portal/contract';
import type { CompanyRow } from '../db/schema.js';

export function presentCompany(row: CompanyRow): TCompany {
  return { id: row.id, companyname: row.companyname, created_at: row.created_at, updated_at: row.updated_at };
}
