import { LIST_PER_PAGE_MAX, ZCompaniesList } from '@portal/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';
import { listParams, type AdminListQuery } from './list-query';

export async function getCompanies(query: AdminListQuery) {
  return api.get(ZCompaniesList, '/admin/companies', { params: listParams(query) });
}

export function companiesQueryOptions(query: AdminListQuery) {
  return queryOptions({
    queryKey: [...queryKeys.adminCompanies, listParams(query)] as const,
    queryFn: () => getCompanies(query),
    placeholderData: keepPreviousData,
  });
}

/** One page of companies (SysAdmin). */
export function useCompanies(query: AdminListQuery) {
  return useQuery(companiesQueryOptions(query));
}

/**
 * Every company by name, for the company filter and for naming a user's or a row's company: the
 * server's largest page (500) covers the partners a portal serves. Only a SysAdmin may ask.
 */
export function useCompanyNames(enabled: boolean) {
  return useQuery({
    ...companiesQueryOptions({ q: '', page: 1, perPage: LIST_PER_PAGE_MAX }),
    enabled,
    select: (answer) => ({ companies: answer.data, nameOf: new Map(answer.data.map((c) => [c.id, c.companyname])) }),
  });
}
