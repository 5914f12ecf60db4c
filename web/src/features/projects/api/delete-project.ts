import { useMutation, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { apiClient } from '../../../lib/api-client';

export async function deleteProject(id: number): Promise<void> {
  await apiClient.put(`/study-petitions-delete/${id}`);
}

export function useDeleteProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteProject,
    onSettled: (_answer, error, id) => {
      if (!error) {
        // The project and its files are gone; nothing may show them from the cache.
        queryClient.removeQueries({ queryKey: queryKeys.project(id) });
        queryClient.removeQueries({ queryKey: queryKeys.projectFiles(id) });
      }
      return queryClient.invalidateQueries({ queryKey: queryKeys.projects });
    },
  });
}
