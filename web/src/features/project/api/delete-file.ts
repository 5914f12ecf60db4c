import { useMutation, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { apiClient } from '../../../lib/api-client';

export async function deleteFile(fileId: number): Promise<void> {
  await apiClient.put(`/study-petitions-files-delete/${fileId}`);
}

/** Spec §7: bulk delete is one call per file, one after the other. */
export async function deleteFilesSequentially(fileIds: readonly number[]): Promise<void> {
  for (const id of fileIds) await deleteFile(id);
}

/** Deletes one file or several of a project; the list is read again even after a failure, since some may be gone. */
export function useDeleteFiles(projectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (fileIds: readonly number[]) =>
      fileIds.length === 1 && fileIds[0] !== undefined ? deleteFile(fileIds[0]) : deleteFilesSequentially(fileIds),
    onSettled: (_answer, _error, fileIds) => {
      for (const id of fileIds) queryClient.removeQueries({ queryKey: queryKeys.fileContents(id) });
      return queryClient.invalidateQueries({ queryKey: queryKeys.projectFiles(projectId) });
    },
  });
}
