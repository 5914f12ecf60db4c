// The signed-in user's two-factor sign-in (issue 37): its state, enrolment, turning it off, new
// recovery codes; and the administrators' reset and company setting.
import {
  listResponse,
  ZCompanyTwoFactor,
  ZRecoveryCodes,
  ZTwoFactorSetup,
  ZTwoFactorStatus,
  type TCompanyTwoFactor,
  type TTwoFactorProof,
  type TTwoFactorSetup,
  type TTwoFactorStatus,
} from '@portal/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';
import { apiClient } from '../../../lib/api-client';

const ZStatusAnswer = listResponse(ZTwoFactorStatus);
const ZSetupAnswer = listResponse(ZTwoFactorSetup);
const ZCodesAnswer = listResponse(ZRecoveryCodes);
const ZCompanyAnswer = listResponse(ZCompanyTwoFactor);

const first = <T>(data: T[]): T => {
  const item = data[0];
  if (item === undefined) throw new Error('The server answered nothing; try again');
  return item;
};

export function useTwoFactorStatus(enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.twoFactor,
    queryFn: async (): Promise<TTwoFactorStatus> => first((await api.get(ZStatusAnswer, '/account/two-factor')).data),
    enabled,
  });
}

export async function startEnrolment(): Promise<TTwoFactorSetup> {
  return first((await api.post(ZSetupAnswer, '/account/two-factor')).data);
}

export async function confirmEnrolment(code: string): Promise<string[]> {
  return first((await api.post(ZCodesAnswer, '/account/two-factor/confirm', { code })).data).recovery_codes;
}

export function useDisableTwoFactor() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (proof: TTwoFactorProof) => first((await api.post(ZStatusAnswer, '/account/two-factor/disable', proof)).data),
    onSuccess: (status) => queryClient.setQueryData(queryKeys.twoFactor, status),
  });
}

export function useNewRecoveryCodes() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (proof: TTwoFactorProof) => first((await api.post(ZCodesAnswer, '/account/two-factor/recovery-codes', proof)).data).recovery_codes,
    // The codes are shown once: the mutation's cache entry goes as soon as it is done.
    gcTime: 0,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.twoFactor }),
  });
}

/** An administrator's reset of a user's second factor (a lost phone). */
export function useResetTwoFactor() {
  return useMutation({
    mutationFn: async (userId: number) => {
      await apiClient.delete(`/admin/users/${userId}/two-factor`);
    },
  });
}

export function useCompanyTwoFactor(companyId: number | undefined) {
  return useQuery({
    queryKey: queryKeys.companyTwoFactor(companyId ?? 0),
    queryFn: async (): Promise<TCompanyTwoFactor> => first((await api.get(ZCompanyAnswer, `/admin/companies/${companyId}/two-factor`)).data),
    enabled: companyId !== undefined,
  });
}

export function useSetCompanyTwoFactor(companyId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (required: boolean) => first((await api.put(ZCompanyAnswer, `/admin/companies/${companyId}/two-factor`, { required })).data),
    onSuccess: (saved) => queryClient.setQueryData(queryKeys.companyTwoFactor(companyId), saved),
  });
}
