import { isAxiosError } from 'axios';
import { formatUserError, mapApiError } from '../../lib/error-mapping';

/** Statuses whose server message names what to change ('The username ada is taken', 'You cannot disable your own account'). */
const SAYS_WHY = new Set([400, 403, 404, 409, 422]);

/**
 * Spec §8's 'message: details', with the server's own reason as the details where it gives one:
 * an administrator needs to know which field or rule refused the change, not only that one did.
 */
export function adminErrorText(error: unknown): string {
  if (isAxiosError<{ message?: unknown }>(error) && error.response && SAYS_WHY.has(error.response.status)) {
    const reason = error.response.data?.message;
    if (typeof reason === 'string' && reason) return `${mapApiError(error).message}: ${reason}`;
  }
  return formatUserError(error);
}
