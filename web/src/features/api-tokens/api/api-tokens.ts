import { listResponse, ZApiToken, ZCreatedApiToken, type TCreateApiToken, type TCreatedApiToken } from '@portal/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';
import { apiClient } from '../../../lib/api-client';

/** 'me': the signed-in user's tokens; 'all': a CompanyAdmin's company's, a SysAdmin's everyone's. */
export function useApiTokens(owner: 'me' | 'all', enabled = true) {
  return useQuery({
    queryKey: queryKeys.apiTokensOf(owner),
    queryFn: () => api.get(listResponse(ZApiToken), '/tokens', { params: owner === 'all' ? { owner } : {} }),
    enabled,
  });
}

/** The answer is the only one that carries the secret: the caller shows it once. */
export function useCreateApiToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: TCreateApiToken): Promise<TCreatedApiToken | undefined> => (await api.post(listResponse(ZCreatedApiToken), '/tokens', body)).data[0],
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.apiTokens }),
  });
}

export function useRevokeApiToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: number) => {
      await apiClient.delete(`/tokens/${id}`);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.apiTokens }),
  });
}
