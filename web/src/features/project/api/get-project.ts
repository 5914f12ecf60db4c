import { listResponse, ZProject, type TProject } from '@portal/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';

const ZProjectAnswer = listResponse(ZProject);

export async function getProject(id: number): Promise<TProject | null> {
  const { data } = await api.get(ZProjectAnswer, `/study-petitions/${id}`);
  return data[0] ?? null;
}

export function projectQueryOptions(id: number) {
  return queryOptions({ queryKey: queryKeys.project(id), queryFn: () => getProject(id) });
}

export function useProject(id: number) {
  return useQuery(projectQueryOptions(id));
}
