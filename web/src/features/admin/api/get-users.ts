import { ZUsersList } from '@portal/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';
import { listParams, type AdminListQuery } from './list-query';

export interface UsersQuery extends AdminListQuery {
  /** A SysAdmin's company filter; a CompanyAdmin always reads their own company. */
  companyId: number | null;
}

function params(query: UsersQuery) {
  return { ...listParams(query), ...(query.companyId === null ? {} : { company_id: query.companyId }) };
}

export async function getUsers(query: UsersQuery) {
  return api.get(ZUsersList, '/admin/users', { params: params(query) });
}

export function usersQueryOptions(query: UsersQuery) {
  return queryOptions({
    queryKey: [...queryKeys.adminUsers, params(query)] as const,
    queryFn: () => getUsers(query),
    placeholderData: keepPreviousData,
  });
}

export function useUsers(query: UsersQuery) {
  return useQuery(usersQueryOptions(query));
}
