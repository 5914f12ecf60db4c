// A project's de-identification policy (issue 33): the project page shows and sets it, the upload
// dialog follows it, so its query lives here rather than behind one feature's index.
import { listResponse, ZDeidentificationPolicy, type TDeidentificationPolicy } from '@portal/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../lib/api-answer';
import { queryKeys } from './query-keys';

export const ZDeidentificationPolicyAnswer = listResponse(ZDeidentificationPolicy);

export const deidentificationPolicyUrl = (projectId: number) => `/study-petitions/${projectId}/deidentification`;

export async function getDeidentificationPolicy(projectId: number): Promise<TDeidentificationPolicy | null> {
  const { data } = await api.get(ZDeidentificationPolicyAnswer, deidentificationPolicyUrl(projectId));
  return data[0] ?? null;
}

export function deidentificationPolicyQueryOptions(projectId: number) {
  return queryOptions({ queryKey: queryKeys.deidentification(projectId), queryFn: () => getDeidentificationPolicy(projectId) });
}

export function useDeidentificationPolicy(projectId: number) {
  return useQuery(deidentificationPolicyQueryOptions(projectId));
}
