import { listResponse, ZProject, type TProject } from '@portal/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';

/** Spec §4: a new project starts valid with status 'Pendant'. */
export const NEW_PROJECT_STATUS = 'Pendant';

const ZProjectAnswer = listResponse(ZProject);

export async function createProject(name: string): Promise<TProject | null> {
  const { data } = await api.post(ZProjectAnswer, '/study-petitions', { name, valid: true, status: NEW_PROJECT_STATUS });
  return data[0] ?? null;
}

export function useCreateProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createProject,
    // Settled, not succeeded: the list is read again after a failure too, as it always was.
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.projects }),
  });
}
