import { listResponse, ZProject, type TProject } from '@portal/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';

const ZProjectAnswer = listResponse(ZProject);

/**
 * Spec §7: the project body goes back with its new name. Only the project's own fields: a row of the
 * projects list also carries its counts and company (additions the server's body refuses).
 */
export async function updateProject(project: TProject, name: string): Promise<TProject | null> {
  const { id, valid, status, company_id, created_at, updated_at } = project;
  const { data } = await api.put(ZProjectAnswer, `/study-petitions/${project.id}`, { id, name, valid, status, company_id, created_at, updated_at });
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
