import { listResponse, ZCompany, type TCompany } from '@portal/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { apiClient } from '../../../lib/api-client';
import { parseAnswer } from './list-query';

const ZCompanyAnswer = listResponse(ZCompany);

export async function createCompany(companyname: string): Promise<TCompany | undefined> {
  const { data } = await apiClient.post<unknown>('/admin/companies', { companyname });
  return parseAnswer(ZCompanyAnswer, data).data[0];
}

export async function renameCompany(id: number, companyname: string): Promise<TCompany | undefined> {
  const { data } = await apiClient.put<unknown>(`/admin/companies/${id}`, { companyname });
  return parseAnswer(ZCompanyAnswer, data).data[0];
}

/** Creates (no id) or renames a company; the lists naming companies are read again. */
export function useSaveCompany() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, companyname }: { id?: number; companyname: string }) =>
      id === undefined ? createCompany(companyname) : renameCompany(id, companyname),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.admin }),
  });
}
