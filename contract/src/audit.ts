// The audit trail (issue 15): every entry chained to the one before by its hash, read page by page or as CSV.
import { z } from './zod.js';
import { listParams, ZListPage } from './common.js';
import { oneOf, single } from './fields.js';

export const ZAuditEntry = z.object({
  seq: z.number().int(),
  at: z.string(),
  action: z.string(),
  actor_id: z.number().int().nullable(),
  actor_name: z.string().nullable(),
  company_id: z.number().int().nullable(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  object_type: z.string().nullable(),
  object_id: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
  hash: z.string(),
});
export type TAuditEntry = z.infer<typeof ZAuditEntry>;

const instant = single('must be given once, as a date or time')
  .pipe(z.string().refine((v) => !Number.isNaN(Date.parse(v)), { error: 'must be a date (2026-01-31) or an ISO 8601 time' }))
  .meta({ type: 'string', format: 'date-time' });

export const ZAuditQuery = z.object({
  page: listParams.page,
  per_page: listParams.per_page,
  order: listParams.order,
  from: instant.optional().describe('At or after this time'),
  to: instant.optional().describe('Before this time'),
  actor: single('must be given once').pipe(z.string().max(255)).meta({ type: 'string', description: 'A user id or username' }).optional(),
  action: single('must be given once').pipe(z.string().max(64)).meta({ type: 'string', description: 'An action (login.failure), or a prefix ending in a dot (login.)' }).optional(),
  object: single('must be given once').pipe(z.string().max(300)).meta({ type: 'string', description: 'An object type (file) or type/id (file/12)' }).optional(),
  format: oneOf(['json', 'csv'], 'must be json or csv').optional(),
});
export type TAuditQuery = z.infer<typeof ZAuditQuery>;
export const ZAuditList = z.object({ data: z.array(ZAuditEntry), page: ZListPage });
