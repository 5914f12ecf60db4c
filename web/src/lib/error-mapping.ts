import { isAxiosError } from 'axios';

export interface UserFacingError {
  message: string;
  details: string;
}

function serverMessage(data: unknown): string | null {
  if (data && typeof data === 'object' && 'message' in data && typeof data.message === 'string' && data.message) {
    return data.message;
  }
  return null;
}

function fromStatus(status: number, data: unknown): UserFacingError {
  switch (status) {
    case 400:
      return { message: 'Bad Request', details: serverMessage(data) ?? 'The data sent is not valid' };
    case 401:
      return { message: 'Unauthorized', details: 'Your session has expired. Please log in again.' };
    case 403:
      return { message: 'Access Denied', details: 'You do not have permission to perform this action' };
    case 404:
      return { message: 'Resource Not Found', details: 'The requested file or resource does not exist' };
    case 409:
      return { message: 'Conflict', details: 'The file already exists or there is a data conflict' };
    case 422:
      return { message: 'Invalid Data', details: serverMessage(data) ?? 'The provided data is not valid' };
    case 500:
      return { message: 'Internal Server Error', details: 'A server error has occurred. Please try again later.' };
    case 502:
      return { message: 'Gateway Error', details: 'The server is temporarily unavailable' };
    case 503:
      return { message: 'Service Unavailable', details: 'The service is temporarily offline' };
    case 504:
      return { message: 'Server Timeout', details: 'The request took too long to process' };
    default:
      return { message: `Error ${status}`, details: serverMessage(data) ?? 'The request could not be completed' };
  }
}

/** Spec §8: what a user is told when a file or project operation fails. */
export function mapApiError(error: unknown): UserFacingError {
  if (isAxiosError(error)) {
    if (error.response) return fromStatus(error.response.status, error.response.data);
    if (error.request) {
      return {
        message: 'Connection Error',
        details: 'Could not connect to server. Please check your internet connection.',
      };
    }
    return { message: 'Configuration Error', details: error.message };
  }
  if (error instanceof Error) return { message: 'Unexpected Error', details: error.message };
  return { message: 'Unknown Error', details: 'An unknown error occurred' };
}

/** Spec §8: an error toast reads 'message: details'. */
export function formatUserError(error: unknown): string {
  const { message, details } = mapApiError(error);
  return `${message}: ${details}`;
}

/**
 * The failure as one line where a status number would say nothing (a failed upload's row, the
 * upload dialog's list): spec §8 names only some statuses, and 'Error 415' is not words, so a bare
 * 'Error NNN' gives way to the server's sentence when it gave one (issue 36). Toasts keep the
 * spec's 'message: details'.
 */
export function failureInWords({ message, details }: UserFacingError): string {
  return /^Error \d+$/.test(message) && details !== 'The request could not be completed' ? details : `${message}: ${details}`;
}

/**
 * A refusal with the server's reason where it gives one ('Invalid Data: A token may live at most one
 * year: …'), for forms whose refusals name what to change; other failures as spec §8 words them.
 */
export function refusalWithReason(error: unknown, statuses: readonly number[]): string {
  if (isAxiosError<{ message?: unknown }>(error) && error.response && statuses.includes(error.response.status)) {
    const reason = error.response.data?.message;
    if (typeof reason === 'string' && reason) return `${mapApiError(error).message}: ${reason}`;
  }
  return formatUserError(error);
}
