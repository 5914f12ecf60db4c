import type { TProject } from '@portal/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { apiClient } from '../../../lib/api-client';

export async function getProject(id: number): Promise<TProject | null> {
  const { data } = await apiClient.get<{ data: TProject[] }>(`/study-petitions/${id}`);
  return data.data[0] ?? null;
}

export function projectQueryOptions(id: number) {
  return queryOptions({ queryKey: queryKeys.project(id), queryFn: () => getProject(id) });
}

export function useProject(id: number) {
  return useQuery(projectQueryOptions(id));
}
