import { QueryClient } from '@tanstack/react-query';
import { isHttpError } from './http-error';

/**
 * A 4xx (401 above all: the api client has already ended the session) will not change by asking
 * again, and spec §8's messages must show at once; a lost connection or an overloaded gateway may
 * pass, so it gets one more try a second later.
 */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (failureCount >= 1 || !isHttpError(error)) return false;
  const status = error.response?.status;
  return status === undefined || status === 502 || status === 503 || status === 504;
}

/** One client per mounted app (and per test render, so no cache leaks between tests). */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: shouldRetry,
        retryDelay: 1000,
        // The screens reloaded on their own actions only; returning to the tab does not reload them.
        refetchOnWindowFocus: false,
      },
      mutations: { retry: false },
    },
  });
}
