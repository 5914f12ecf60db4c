import axios, { type AxiosError } from 'axios';
import { logHttpError } from './http-error-log';
import { clearSession, readToken } from './storage';

/** Spec §9: every call but upload and download gives up after 30 s. */
export const REQUEST_TIMEOUT_MS = 30_000;

export const apiClient = axios.create({
  baseURL: '/api/v1',
  timeout: REQUEST_TIMEOUT_MS,
  headers: { 'Content-Type': 'application/json' },
});

let onUnauthorized: () => void = () => {
  if (window.location.pathname !== '/') window.location.assign('/');
};

/** The session replaces the full-page fallback with a router navigation once it is mounted. */
export function setUnauthorizedHandler(handler: () => void): () => void {
  const previous = onUnauthorized;
  onUnauthorized = handler;
  return () => {
    onUnauthorized = previous;
  };
}

apiClient.interceptors.request.use((config) => {
  const token = readToken();
  if (token) config.headers.set('Authorization', `Bearer ${token}`);
  return config;
});

apiClient.interceptors.response.use(undefined, (error: AxiosError) => {
  logHttpError(error);
  if (error.response?.status === 401) {
    clearSession();
    onUnauthorized();
  }
  return Promise.reject(error);
});
