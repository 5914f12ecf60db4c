import type { TPasswordResetRequest } from '@portal/contract';
import { isAxiosError } from 'axios';
import { apiClient } from '../../../lib/api-client';

export async function changePassword(body: TPasswordResetRequest): Promise<unknown> {
  const { data } = await apiClient.post<unknown>('/password_reset', body);
  return data;
}

/** Spec §8: the server's message, or 'Error changing password'. */
export function passwordErrorMessage(error: unknown): string {
  if (isAxiosError<{ message?: unknown }>(error)) {
    const message = error.response?.data?.message;
    if (typeof message === 'string' && message) return message;
  }
  return 'Error changing password';
}
