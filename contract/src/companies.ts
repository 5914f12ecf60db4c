// Companies: the tenants, with their storage allowance; managed over the API by a SysAdmin (issue 15).
import { z } from './zod.js';
import { listParams, ZListPage } from './common.js';
import { trimmedName } from './fields.js';

export const ZCompany = z.object({
  id: z.number().int(),
  companyname: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  quota_bytes: z.number().int().nullable().describe('The storage allowance in bytes; null: unlimited'),
  used_bytes: z.number().int().describe('Bytes of the company’s live files (deleted files do not count)'),
});
export type TCompany = z.infer<typeof ZCompany>;

export const ZCreateCompany = z.strictObject({ companyname: trimmedName('The company name') });
export type TCreateCompany = z.infer<typeof ZCreateCompany>;
/** PUT /admin/companies/{id}: a new name, a new allowance (null: unlimited), or both. */
export const ZUpdateCompany = z
  .strictObject({
    companyname: trimmedName('The company name').optional(),
    quota_bytes: z
      .number({ error: 'The storage allowance must be a number of bytes, or null for unlimited' })
      .int({ error: 'The storage allowance must be a whole number of bytes' })
      .min(0, { error: 'The storage allowance cannot be negative' })
      .max(Number.MAX_SAFE_INTEGER, { error: 'The storage allowance is too large' })
      .nullable()
      .optional(),
  })
  .refine((b) => b.companyname !== undefined || b.quota_bytes !== undefined, { error: 'Send companyname, quota_bytes or both' });
export type TUpdateCompany = z.infer<typeof ZUpdateCompany>;
export const ZCompaniesQuery = z.object(listParams);
export const ZCompaniesList = z.object({ data: z.array(ZCompany), page: ZListPage });
