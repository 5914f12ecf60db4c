import { listResponse, ZAdminUser, type TAdminUser, type TCreateUser, type TUpdateUser } from '@portal/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';

const ZUserAnswer = listResponse(ZAdminUser);

export async function createUser(body: TCreateUser): Promise<TAdminUser | undefined> {
  const { data } = await api.post(ZUserAnswer, '/admin/users', body);
  return data[0];
}

export async function updateUser(id: number, body: TUpdateUser): Promise<TAdminUser | undefined> {
  const { data } = await api.put(ZUserAnswer, `/admin/users/${id}`, body);
  return data[0];
}

/** A user changed or created shows in the users list and in the audit trail: both are read again. */
function useRefreshAdmin() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: queryKeys.admin });
}

export function useCreateUser() {
  const refresh = useRefreshAdmin();
  return useMutation({ mutationFn: createUser, onSettled: refresh });
}

/** Names, e-mail, role, or `disabled` (which signs the user out everywhere). */
export function useUpdateUser() {
  const refresh = useRefreshAdmin();
  return useMutation({ mutationFn: ({ id, changes }: { id: number; changes: TUpdateUser }) => updateUser(id, changes), onSettled: refresh });
}
