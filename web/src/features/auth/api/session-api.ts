// The session's calls and how a refused sign-in is worded. The session provider loads this module
// when a call is first made, not with the sign-in screen: it brings the HTTP client and the
// contract's schemas, which the form does not need to be usable (issue 36).
import { isAxiosError } from 'axios';
import type { PendingSecondStep } from '../session-context';
import { secondStepDue } from './second-step-api';

export { fetchCompany, login, logout } from './auth-api';

export const INVALID_LOGIN = 'Invalid Login';

/** The server's sentence under 'Invalid Login' when it said more: a company that signs in through its provider. */
function failureDetails(error: unknown): string | null {
  if (!isAxiosError<{ message?: string }>(error) || error.response?.status !== 403) return null;
  return error.response.data?.message ?? null;
}

/**
 * A throttled sign-in was not judged at all, so it is not an 'Invalid Login' (issue 36): the
 * server's words say when to try again, with the clock time from Retry-After.
 */
function throttledMessage(error: unknown): string | null {
  if (!isAxiosError<{ message?: string }>(error) || error.response?.status !== 429) return null;
  const words = error.response.data?.message ?? 'Too many failed login attempts. Try again later.';
  const seconds = Number(error.response.headers['retry-after']);
  if (!Number.isFinite(seconds) || seconds <= 0) return words;
  const at = new Date(Date.now() + seconds * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return `${words} (at ${at})`;
}

export type LoginFailure = { secondStep: PendingSecondStep } | { error: string; details: string | null };

/** What a failed POST /login means for the screen: a second step is due, or what to say. */
export function describeLoginFailure(failure: unknown): LoginFailure {
  const due = secondStepDue(failure);
  if (due) return { secondStep: due };
  return { error: throttledMessage(failure) ?? INVALID_LOGIN, details: failureDetails(failure) };
}
