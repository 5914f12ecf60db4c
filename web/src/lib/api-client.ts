import axios, { type AxiosError } from 'axios';
import { logHttpError } from './http-error-log';
import { clearSession, readToken } from './storage';
import { reportUnauthorized } from './unauthorized';

/** Spec §9: every call but upload and download gives up after 30 s. */
export const REQUEST_TIMEOUT_MS = 30_000;

export const apiClient = axios.create({
  baseURL: '/api/v1',
  timeout: REQUEST_TIMEOUT_MS,
  headers: { 'Content-Type': 'application/json' },
});

export { setUnauthorizedHandler } from './unauthorized';

apiClient.interceptors.request.use((config) => {
  const token = readToken();
  if (token) config.headers.set('Authorization', `Bearer ${token}`);
  return config;
});

apiClient.interceptors.response.use(undefined, (error: AxiosError) => {
  logHttpError(error);
  if (error.response?.status === 401) {
    clearSession();
    reportUnauthorized();
  }
  return Promise.reject(error);
});
