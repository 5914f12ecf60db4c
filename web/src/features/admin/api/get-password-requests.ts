import { ZPasswordRequestsList } from '@portal/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';
import { listParams, type AdminListQuery } from './list-query';

export type RequestStatus = 'open' | 'resolved' | 'all';

export interface PasswordRequestsQuery extends AdminListQuery {
  status: RequestStatus;
}

function params(query: PasswordRequestsQuery) {
  return { ...listParams(query), status: query.status };
}

export async function getPasswordRequests(query: PasswordRequestsQuery) {
  return api.get(ZPasswordRequestsList, '/admin/password-requests', { params: params(query) });
}

export type PasswordRequest = Awaited<ReturnType<typeof getPasswordRequests>>['data'][number];

export function passwordRequestsQueryOptions(query: PasswordRequestsQuery) {
  return queryOptions({
    queryKey: [...queryKeys.adminPasswordRequests, params(query)] as const,
    queryFn: () => getPasswordRequests(query),
    placeholderData: keepPreviousData,
  });
}

export function usePasswordRequests(query: PasswordRequestsQuery) {
  return useQuery(passwordRequestsQueryOptions(query));
}

/** How many requests wait for an answer: the count on the tab. */
export function useOpenRequestCount() {
  return useQuery({
    ...passwordRequestsQueryOptions({ q: '', page: 1, perPage: 1, status: 'open' }),
    select: (answer) => answer.page.total,
    // An administrator who keeps the screen open learns of a new request within a minute.
    refetchInterval: 60_000,
  });
}
