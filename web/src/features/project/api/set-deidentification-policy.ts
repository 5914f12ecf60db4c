import type { TDeidentificationPolicy, TUpdateDeidentificationPolicy } from '@portal/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { deidentificationPolicyUrl, ZDeidentificationPolicyAnswer } from '../../../api/deidentification-policy';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';

/** SysAdmin only (the server answers 403 to anyone else); the answer is the policy now in force. */
export async function setDeidentificationPolicy(projectId: number, body: TUpdateDeidentificationPolicy): Promise<TDeidentificationPolicy | null> {
  const { data } = await api.put(ZDeidentificationPolicyAnswer, deidentificationPolicyUrl(projectId), body);
  return data[0] ?? null;
}

export function useSetDeidentificationPolicy(projectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TUpdateDeidentificationPolicy) => setDeidentificationPolicy(projectId, body),
    onSuccess: (policy) => {
      // The page's line shows the answer at once; the refetch below only confirms it.
      if (policy) queryClient.setQueryData(queryKeys.deidentification(projectId), policy);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.deidentification(projectId) }),
  });
}
