import { listResponse, ZCompany, type TCompany } from '@portal/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';

const ZCompanyAnswer = listResponse(ZCompany);

export async function createCompany(companyname: string): Promise<TCompany | undefined> {
  const { data } = await api.post(ZCompanyAnswer, '/admin/companies', { companyname });
  return data[0];
}

export async function renameCompany(id: number, companyname: string): Promise<TCompany | undefined> {
  const { data } = await api.put(ZCompanyAnswer, `/admin/companies/${id}`, { companyname });
  return data[0];
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

/** Sets a company's storage allowance in bytes (null: no limit). */
export async function setCompanyQuota(id: number, quotaBytes: number | null): Promise<TCompany | undefined> {
  const { data } = await api.put(ZCompanyAnswer, `/admin/companies/${id}`, { quota_bytes: quotaBytes });
  return data[0];
}

/** Sets a company's storage allowance; the lists showing it are read again. */
export function useSetCompanyQuota() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, quotaBytes }: { id: number; quotaBytes: number | null }) => setCompanyQuota(id, quotaBytes),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.admin }),
  });
}
