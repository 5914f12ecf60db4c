import { listResponse, ZProject, type TProject } from '@portal/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';

const ZProjectAnswer = listResponse(ZProject);

export async function updateProject(project: TProject, name: string): Promise<TProject | null> {
  const { data } = await api.put(ZProjectAnswer, `/study-petitions/${project.id}`, { ...project, name });
  return data[0] ?? null;
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
