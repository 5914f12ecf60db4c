import { listResponse, ZCompany, type TCompany } from '@portal/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-answer';

const ZCompanyAnswer = listResponse(ZCompany);

/** The signed-in user's company as it is now: what it stores and its allowance. */
export async function getCompanyStorage(companyId: number): Promise<TCompany | null> {
  const { data } = await api.get(ZCompanyAnswer, `/company/${companyId}`);
  return data[0] ?? null;
}

export function companyStorageQueryOptions(companyId: number) {
  // Read again whenever the projects screen is shown: uploads and deletes elsewhere change it.
  return queryOptions({ queryKey: ['company-storage', companyId] as const, queryFn: () => getCompanyStorage(companyId), staleTime: 0 });
}

export function useCompanyStorage(companyId: number | undefined) {
  return useQuery({ ...companyStorageQueryOptions(companyId ?? 0), enabled: companyId !== undefined });
}
