import { ZPasswordResetResponse, type TPasswordResetRequest } from '@portal/contract';
import { isAxiosError } from 'axios';
import { api } from '../../../lib/api-answer';

/** Resolves once the server confirms (its message is not shown: the dialog says it in its own words). */
export async function changePassword(body: TPasswordResetRequest): Promise<void> {
  await api.post(ZPasswordResetResponse, '/password_reset', body);
}

/** Spec §8: the server's message, or 'Error changing password'. */
export function passwordErrorMessage(error: unknown): string {
  if (isAxiosError<{ message?: unknown }>(error)) {
    const message = error.response?.data?.message;
    if (typeof message === 'string' && message) return message;
  }
  return 'Error changing password';
}
