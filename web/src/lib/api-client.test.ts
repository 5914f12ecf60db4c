import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../test/fake-api';
import { apiClient, REQUEST_TIMEOUT_MS, setUnauthorizedHandler } from './api-client';
import { logHttpError } from './http-error-log';
import { AxiosError, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';

afterEach(() => vi.restoreAllMocks());

describe('apiClient', () => {
  it('targets /api/v1 with a 30 s timeout', () => {
    expect(apiClient.defaults.baseURL).toBe('/api/v1');
    expect(apiClient.defaults.timeout).toBe(30_000);
    expect(REQUEST_TIMEOUT_MS).toBe(30_000);
  });

  it('sends the stored token as a bearer header, and none when signed out', async () => {
    const api = fakeApi({ 'GET /study-petitions': { status: 200, data: { data: [] } } });
    await apiClient.get('/study-petitions');
    localStorage.setItem('token', 'tok-1');
    await apiClient.get('/study-petitions');
    expect(api.calls[0]?.config.headers.Authorization).toBeUndefined();
    expect(api.calls[1]?.config.headers.Authorization).toBe('Bearer tok-1');
  });

  it('on 401 forgets the token and user and hands over to the session', async () => {
    fakeApi({ 'GET /study-petitions': { status: 401, data: { message: 'expired' } } });
    localStorage.setItem('token', 'tok-1');
    localStorage.setItem('user', '{}');
    const handler = vi.fn();
    const restore = setUnauthorizedHandler(handler);
    await expect(apiClient.get('/study-petitions')).rejects.toThrow();
    restore();
    expect(localStorage.getItem('token')).toBeNull();
    expect(localStorage.getItem('user')).toBeNull();
    expect(handler).toHaveBeenCalledOnce();
  });

  it('keeps the session on other errors', async () => {
    fakeApi({ 'GET /study-petitions': { status: 500 } });
    localStorage.setItem('token', 'tok-1');
    await expect(apiClient.get('/study-petitions')).rejects.toThrow();
    expect(localStorage.getItem('token')).toBe('tok-1');
  });
});

describe('logHttpError (spec §8 session-level messages)', () => {
  const config = { headers: {} } as InternalAxiosRequestConfig;
  const failed = (status: number, data: unknown = { message: 'x' }) =>
    new AxiosError('failed', 'ERR', config, {}, { status, data, statusText: '', headers: {}, config } as AxiosResponse);

  it.each([
    [403, 'Access denied'],
    [404, 'Resource not found'],
    [500, 'Internal server error'],
    [502, 'Gateway error'],
    [503, 'Service unavailable'],
    [504, 'Gateway timeout'],
  ])('logs %d as %s', (status, text) => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    logHttpError(failed(status));
    expect(log).toHaveBeenCalledWith(text);
  });

  it('logs 422 with its body, other statuses with status and body, and lost connections', () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    logHttpError(failed(422, { message: 'bad' }));
    logHttpError(failed(418, 'teapot'));
    logHttpError(new AxiosError('Network Error', 'ERR_NETWORK', config, {}));
    expect(log.mock.calls).toEqual([['Invalid data', { message: 'bad' }], ['HTTP Error', 418, 'teapot'], ['Network error - could not connect to server']]);
  });
});
