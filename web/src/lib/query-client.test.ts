import { AxiosError, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import { describe, expect, it } from 'vitest';
import { shouldRetry } from './query-client';

const config = { headers: {} } as InternalAxiosRequestConfig;
function answered(status: number): AxiosError {
  const response = { status, data: {}, statusText: '', headers: {}, config } as AxiosResponse;
  return new AxiosError(`Request failed with status code ${status}`, AxiosError.ERR_BAD_RESPONSE, config, {}, response);
}
const networkError = new AxiosError('Network Error', AxiosError.ERR_NETWORK, config, {});

describe('shouldRetry', () => {
  it.each([401, 403, 404, 422, 429, 500])('does not ask again after a %i', (status) => {
    expect(shouldRetry(0, answered(status))).toBe(false);
  });

  it.each([502, 503, 504])('asks once more after a %i, and only once', (status) => {
    expect(shouldRetry(0, answered(status))).toBe(true);
    expect(shouldRetry(1, answered(status))).toBe(false);
  });

  it('asks once more when the server could not be reached', () => {
    expect(shouldRetry(0, networkError)).toBe(true);
    expect(shouldRetry(1, networkError)).toBe(false);
  });

  it('does not retry what is not an HTTP failure (a bug in the code)', () => {
    expect(shouldRetry(0, new TypeError('x is undefined'))).toBe(false);
  });
});
