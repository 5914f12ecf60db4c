import { ZResetLinkResponse } from '@portal/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';

export interface ResetLink {
  reset_url: string;
  expires_at: string;
}

/** A single-use link for the user to set a new password; the server keeps only its hash. */
export async function createResetLink(userId: number): Promise<ResetLink> {
  const { data } = await api.post(ZResetLinkResponse, `/admin/users/${userId}/reset-password`);
  const link = data[0];
  if (!link) throw new Error('The server answered no reset link; try again');
  return link;
}

export function useCreateResetLink() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createResetLink,
    // The link is shown once: the mutation's cache entry (which holds it) goes as soon as it is done.
    gcTime: 0,
    // A link resolves the user's open password requests.
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.admin }),
  });
}
