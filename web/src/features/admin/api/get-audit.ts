import { ZAuditList } from '@portal/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';

/** The audit screen's filters as typed: days (YYYY-MM-DD, the user's own calendar) and text. */
export interface AuditFilters {
  from: string;
  to: string;
  actor: string;
  action: string;
  object: string;
}

export const NO_AUDIT_FILTERS: AuditFilters = { from: '', to: '', actor: '', action: '', object: '' };

/** Local midnight of a YYYY-MM-DD day, `plusDays` later, as the ISO time the server compares. */
function localMidnight(day: string, plusDays = 0): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + plusDays);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/**
 * The server's filter parameters: `from` is the start of its day and `to` (the server's "before")
 * the start of the day after, so both days are included as the screen shows them.
 */
export function auditParams(filters: AuditFilters): Record<string, string> {
  const params: Record<string, string> = {};
  const from = localMidnight(filters.from);
  const to = localMidnight(filters.to, 1);
  if (from) params.from = from;
  if (to) params.to = to;
  for (const key of ['actor', 'action', 'object'] as const) {
    const value = filters[key].trim();
    if (value) params[key] = value;
  }
  return params;
}

export async function getAudit(filters: AuditFilters, page: number, perPage: number) {
  return api.get(ZAuditList, '/admin/audit', { params: { ...auditParams(filters), page, per_page: perPage } });
}

export function auditQueryOptions(filters: AuditFilters, page: number, perPage: number) {
  return queryOptions({
    queryKey: [...queryKeys.adminAudit, auditParams(filters), page, perPage] as const,
    queryFn: () => getAudit(filters, page, perPage),
    placeholderData: keepPreviousData,
  });
}

/** One page of the audit trail, newest first (SysAdmin: every company's; CompanyAdmin: their own). */
export function useAudit(filters: AuditFilters, page: number, perPage: number) {
  return useQuery(auditQueryOptions(filters, page, perPage));
}
