import { ZProjectStudies, type TProjectStudies, type TSortOrder, type TStudySort } from '@portal/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';

/** One page of the project's studies, as the server searches, sorts and pages them (docs/api.md). */
export interface StudiesQuery {
  q: string;
  sort: TStudySort | null;
  order: TSortOrder;
  /** 1-based, as the server counts. */
  page: number;
  perPage: number;
}

/** While any upload of the project is still being processed, its studies are read again this often. */
export const STUDIES_POLL_MS = 3000;

function params(query: StudiesQuery): Record<string, string | number> {
  const trimmed = query.q.trim();
  return {
    ...(trimmed ? { q: trimmed } : {}),
    // Without a sort the server's own order applies (newest study first); order alone means nothing.
    ...(query.sort ? { sort: query.sort, order: query.order } : {}),
    page: query.page,
    per_page: query.perPage,
  };
}

export async function getProjectStudies(projectId: number, query: StudiesQuery): Promise<TProjectStudies> {
  return api.get(ZProjectStudies, `/study-petitions/${projectId}/studies`, { params: params(query) });
}

export function projectStudiesQueryOptions(projectId: number, query: StudiesQuery, poll: boolean) {
  return queryOptions({
    queryKey: [...queryKeys.projectStudies(projectId), params(query)] as const,
    queryFn: () => getProjectStudies(projectId, query),
    // The last page stays on screen while the next one (another search, sort or page) loads.
    placeholderData: keepPreviousData,
    refetchInterval: poll ? STUDIES_POLL_MS : false,
  });
}

export function useProjectStudies(projectId: number, query: StudiesQuery, poll: boolean) {
  return useQuery(projectStudiesQueryOptions(projectId, query, poll));
}
