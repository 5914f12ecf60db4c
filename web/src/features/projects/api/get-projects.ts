import type { TProject } from '@portal/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { apiClient } from '../../../lib/api-client';

export async function getProjects(): Promise<TProject[]> {
  const { data } = await apiClient.get<{ data: TProject[] }>('/study-petitions');
  return data.data;
}

export function projectsQueryOptions() {
  return queryOptions({ queryKey: queryKeys.projects, queryFn: getProjects });
}

export function useProjects() {
  return useQuery(projectsQueryOptions());
}
