import type { TProject } from '@portal/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { apiClient } from '../../../lib/api-client';

export async function updateProject(project: TProject, name: string): Promise<TProject | null> {
  const { data } = await apiClient.put<{ data: TProject[] }>(`/study-petitions/${project.id}`, { ...project, name });
  return data.data[0] ?? null;
}

export function useUpdateProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ project, name }: { project: TProject; name: string }) => updateProject(project, name),
    onSettled: (_answer, _error, { project }) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.projects }),
        queryClient.invalidateQueries({ queryKey: queryKeys.project(project.id) }),
      ]),
  });
}
