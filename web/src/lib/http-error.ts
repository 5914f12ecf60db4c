import type { AxiosError } from 'axios';

/**
 * axios's own `isAxiosError`, without loading axios: modules of the first screen (the query
 * client's retry rule) ask it before any call has loaded the HTTP client (issue 36).
 */
export function isHttpError<T = unknown>(error: unknown): error is AxiosError<T> {
  return typeof error === 'object' && error !== null && (error as { isAxiosError?: unknown }).isAxiosError === true;
}
