import { AxiosError, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import { onTestFinished, vi } from 'vitest';
import { apiClient } from '../lib/api-client';

export interface FakeCall {
  method: string;
  url: string;
  params: unknown;
  data: unknown;
  config: InternalAxiosRequestConfig;
}

export type FakeReply = { status: number; data?: unknown; headers?: Record<string, string> } | { network: true };
type Route = FakeReply | ((call: FakeCall) => FakeReply | Promise<FakeReply>);

const SESSION_LOG = /^(Unreadable answer|Unauthorized|Access denied|Resource not found|Invalid data|Internal server error|Gateway error|Service unavailable|Gateway timeout|HTTP Error|Network error)/;

/**
 * Makes `adapter` answer every call of the one axios instance for the rest of the test, with the
 * session's console logs of failed calls (spec §8) kept quiet: tests that provoke failures need
 * not show them.
 */
export function answerApiWith(adapter: (config: InternalAxiosRequestConfig) => Promise<AxiosResponse>): void {
  const original = apiClient.defaults.adapter;
  apiClient.defaults.adapter = adapter;
  const realError = console.error;
  const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    if (typeof args[0] === 'string' && SESSION_LOG.test(args[0])) return;
    realError(...args);
  });
  onTestFinished(() => {
    apiClient.defaults.adapter = original;
    spy.mockRestore();
  });
}

/**
 * Answers the one axios instance from a table of `METHOD /path` routes, so component tests run the
 * real API functions and interceptors without a server. Unlisted calls answer 404.
 */
export function fakeApi(routes: Record<string, Route>) {
  const calls: FakeCall[] = [];
  answerApiWith(async (config) => {
    const call: FakeCall = {
      method: (config.method ?? 'get').toUpperCase(),
      url: config.url ?? '',
      params: config.params,
      data: typeof config.data === 'string' ? JSON.parse(config.data) : config.data,
      config,
    };
    calls.push(call);
    const route = routes[`${call.method} ${call.url}`] ?? { status: 404, data: { message: 'Not found' } };
    const reply = typeof route === 'function' ? await route(call) : route;
    if ('network' in reply) throw new AxiosError('Network Error', AxiosError.ERR_NETWORK, config, {});
    const response: AxiosResponse = { data: reply.data, status: reply.status, statusText: '', headers: reply.headers ?? {}, config, request: {} };
    if (reply.status >= 400) {
      throw new AxiosError(`Request failed with status code ${reply.status}`, AxiosError.ERR_BAD_RESPONSE, config, {}, response);
    }
    return response;
  });
  return {
    calls,
    callsTo: (method: string, url: string) => calls.filter((c) => c.method === method && c.url === url),
  };
}
