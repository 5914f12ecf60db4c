import { listResponse, ZProject, type TProject } from '@portal/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';

const ZProjects = listResponse(ZProject);

export async function getProjects(): Promise<TProject[]> {
  const { data } = await api.get(ZProjects, '/study-petitions');
  return data;
}

export function projectsQueryOptions() {
  return queryOptions({ queryKey: queryKeys.projects, queryFn: getProjects });
}

export function useProjects() {
  return useQuery(projectsQueryOptions());
}
