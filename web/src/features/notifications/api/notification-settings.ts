import { listResponse, ZNotificationPreferences, type TNotificationPreferences, type TUpdateNotificationPreferences } from '@portal/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';

const ZAnswer = listResponse(ZNotificationPreferences);

export function useNotificationSettings(enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.notificationSettings,
    queryFn: async () => (await api.get(ZAnswer, '/me/notifications')).data[0] ?? null,
    enabled,
  });
}

/** Saves the choice; the dialog's copy is replaced by what the server keeps. */
export function useSaveNotificationSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: TUpdateNotificationPreferences): Promise<TNotificationPreferences | undefined> =>
      (await api.put(ZAnswer, '/me/notifications', body)).data[0],
    onSuccess: (saved) => queryClient.setQueryData(queryKeys.notificationSettings, saved ?? null),
  });
}
