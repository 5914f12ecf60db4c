import { AxiosError, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import { describe, expect, it } from 'vitest';
import { failureInWords, formatUserError, mapApiError } from './error-mapping';

const config = { headers: {} } as InternalAxiosRequestConfig;

function httpError(status: number, data: unknown = {}): AxiosError {
  const response = { status, data, statusText: '', headers: {}, config } as AxiosResponse;
  return new AxiosError('failed', AxiosError.ERR_BAD_RESPONSE, config, {}, response);
}

describe('mapApiError (spec §8)', () => {
  it.each([
    [400, 'Bad Request', 'The data sent is not valid'],
    [401, 'Unauthorized', 'Your session has expired. Please log in again.'],
    [403, 'Access Denied', 'You do not have permission to perform this action'],
    [404, 'Resource Not Found', 'The requested file or resource does not exist'],
    [409, 'Conflict', 'The file already exists or there is a data conflict'],
    [422, 'Invalid Data', 'The provided data is not valid'],
    [500, 'Internal Server Error', 'A server error has occurred. Please try again later.'],
    [502, 'Gateway Error', 'The server is temporarily unavailable'],
    [503, 'Service Unavailable', 'The service is temporarily offline'],
    [504, 'Server Timeout', 'The request took too long to process'],
  ])('maps %d to %s', (status, message, details) => {
    expect(mapApiError(httpError(status))).toEqual({ message, details });
  });

  it.each([
    [400, 'Bad Request'],
    [422, 'Invalid Data'],
  ])('uses the server message as details for %d', (status, message) => {
    expect(mapApiError(httpError(status, { message: 'name is too long' }))).toEqual({ message, details: 'name is too long' });
  });

  it('keeps the fixed details of other statuses even when the server explains', () => {
    expect(mapApiError(httpError(403, { message: 'nope' })).details).toBe('You do not have permission to perform this action');
  });

  it("names any other status 'Error {status}'", () => {
    expect(mapApiError(httpError(413, { message: 'File too large' }))).toEqual({ message: 'Error 413', details: 'File too large' });
    expect(mapApiError(httpError(418)).message).toBe('Error 418');
  });

  it('reports a request without an answer as a connection error', () => {
    const error = new AxiosError('Network Error', AxiosError.ERR_NETWORK, config, {});
    expect(mapApiError(error)).toEqual({
      message: 'Connection Error',
      details: 'Could not connect to server. Please check your internet connection.',
    });
  });

  it('reports a request that could not be built as a configuration error', () => {
    expect(mapApiError(new AxiosError('Invalid URL', AxiosError.ERR_BAD_OPTION, config))).toEqual({
      message: 'Configuration Error',
      details: 'Invalid URL',
    });
  });

  it('reports other errors as unexpected, and non-errors as unknown', () => {
    expect(mapApiError(new Error('boom'))).toEqual({ message: 'Unexpected Error', details: 'boom' });
    expect(mapApiError('boom').message).toBe('Unknown Error');
  });

  it("formats the toast text as 'message: details'", () => {
    expect(formatUserError(httpError(409))).toBe('Conflict: The file already exists or there is a data conflict');
  });
});

describe('failureInWords', () => {
  it("gives the server's sentence instead of a bare 'Error NNN', and keeps the spec's pairs otherwise", () => {
    expect(failureInWords({ message: 'Error 415', details: 'The content of bad.zip is not a ZIP archive' })).toBe('The content of bad.zip is not a ZIP archive');
    expect(failureInWords({ message: 'Error 418', details: 'The request could not be completed' })).toBe('Error 418: The request could not be completed');
    expect(failureInWords({ message: 'Conflict', details: 'The file already exists or there is a data conflict' })).toBe(
      'Conflict: The file already exists or there is a data conflict',
    );
  });
});
