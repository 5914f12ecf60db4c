/** One page of an administration list, as the server searches and pages it (docs/api.md, Administration). */
export interface AdminListQuery {
  q: string;
  /** 1-based, as the server counts. */
  page: number;
  perPage: number;
}

export function listParams(query: AdminListQuery): Record<string, string | number> {
  const q = query.q.trim();
  return { ...(q ? { q } : {}), page: query.page, per_page: query.perPage };
}
