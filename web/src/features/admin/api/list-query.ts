/** One page of an administration list, as the server searches and pages it (docs/api.md, Administration). */
export interface AdminListQuery {
  q: string;
  /** 1-based, as the server counts. */
  page: number;
  perPage: number;
}

/** Shown when an answer is not the contract's shape: a server and a page of different versions. */
export const UNREADABLE_ANSWER = 'The server answered with data this page cannot read; reload the page and try again';

export function listParams(query: AdminListQuery): Record<string, string | number> {
  const q = query.q.trim();
  return { ...(q ? { q } : {}), page: query.page, per_page: query.perPage };
}

/** Parses an answer with the contract's schema, so a screen never renders a shape it does not know. */
export function parseAnswer<T>(schema: { safeParse: (data: unknown) => { success: true; data: T } | { success: false } }, data: unknown): T {
  const answer = schema.safeParse(data);
  if (!answer.success) throw new Error(UNREADABLE_ANSWER);
  return answer.data;
}
