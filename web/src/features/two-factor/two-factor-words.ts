import { isAxiosError } from 'axios';
import { formatUserError } from '../../lib/error-mapping';

/** The server's own sentence (a wrong code, an expired sign-in, a throttle), else spec §8's words. */
export function serverWords(error: unknown): string {
  if (isAxiosError<{ message?: unknown }>(error) && typeof error.response?.data?.message === 'string' && error.response.data.message) {
    return error.response.data.message;
  }
  return formatUserError(error);
}

/** 'JBSW Y3DP …': a long secret read off a screen and typed by hand, in groups of four. */
export function groupedSecret(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}
