import type { TCompany } from '@portal/contract';
import type { CompanyRow } from '../db/schema.js';

/** `usedBytes`: what the company's live files hold (quota/). */
export function presentCompany(row: CompanyRow, usedBytes: number): TCompany {
  return {
    id: row.id,
    companyname: row.companyname,
    created_at: row.created_at,
    updated_at: row.updated_at,
    quota_bytes: row.quota_bytes === null ? null : Number(row.quota_bytes),
    used_bytes: usedBytes,
  };
}
