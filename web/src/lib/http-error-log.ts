import type { AxiosError } from 'axios';

const SESSION_MESSAGES: Record<number, string> = {
  403: 'Access denied',
  404: 'Resource not found',
  500: 'Internal server error',
  502: 'Gateway error',
  503: 'Service unavailable',
  504: 'Gateway timeout',
};

/** Spec §8 session-level handling: the console learns what failed; the caller still gets the error. */
export function logHttpError(error: AxiosError): void {
  const response = error.response;
  if (!response) {
    console.error('Network error - could not connect to server');
    return;
  }
  const { status, data } = response;
  if (status === 401) console.error('Unauthorized');
  else if (status === 422) console.error('Invalid data', data);
  else if (SESSION_MESSAGES[status]) console.error(SESSION_MESSAGES[status]);
  else console.error('HTTP Error', status, data);
}
