import type { TProjectFile } from '@portal/contract';
import { queryOptions } from '@tanstack/react-query';
import { apiClient } from '../lib/api-client';
import { queryKeys } from './query-keys';

export async function getProjectFiles(projectId: number): Promise<TProjectFile[]> {
  const { data } = await apiClient.get<{ data: TProjectFile[] }>('/study-petitions-files', {
    params: { study_petition_id: projectId },
  });
  return data.data;
}

/** The files of one project, read by the project page (which adds polling) and the projects tree. */
export function projectFilesQueryOptions(projectId: number) {
  return queryOptions({ queryKey: queryKeys.projectFiles(projectId), queryFn: () => getProjectFiles(projectId) });
}
