import { listResponse, ZCreatedWebhook, ZWebhook, ZWebhookDeliveriesList, type TCreateWebhook, type TCreatedWebhook } from '@portal/contract';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';
import { apiClient } from '../../../lib/api-client';

/** Every endpoint the administrator may see (a CompanyAdmin's company's; a SysAdmin's all). */
export function useWebhooks() {
  return useQuery({
    queryKey: queryKeys.adminWebhooks,
    queryFn: () => api.get(listResponse(ZWebhook), '/admin/webhooks'),
  });
}

export function useCreateWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: TCreateWebhook): Promise<TCreatedWebhook | undefined> => (await api.post(listResponse(ZCreatedWebhook), '/admin/webhooks', body)).data[0],
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.adminWebhooks }),
  });
}

export function useDeleteWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: number) => {
      await apiClient.delete(`/admin/webhooks/${id}`);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.adminWebhooks }),
  });
}

/** One page of an endpoint's log, newest first; read again every 5 s while open (retries change it). */
export function useWebhookDeliveries(id: number, page: number, perPage: number) {
  return useQuery({
    queryKey: [...queryKeys.adminWebhooks, id, 'deliveries', page, perPage] as const,
    queryFn: () => api.get(ZWebhookDeliveriesList, `/admin/webhooks/${id}/deliveries`, { params: { page: page + 1, per_page: perPage } }),
    placeholderData: keepPreviousData,
    refetchInterval: 5000,
  });
}
