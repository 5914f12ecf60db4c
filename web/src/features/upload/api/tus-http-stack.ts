import { isAxiosError, type AxiosResponse } from 'axios';
import type { HttpRequest, HttpResponse, HttpStack } from 'tus-js-client';
import { apiClient } from '../../../lib/api-client';

const API_BASE = apiClient.defaults.baseURL ?? '/api/v1';

/** Where tus uploads are created (issue 13); the server answers each with its own address below it. */
export const TUS_ENDPOINT = `${API_BASE}/uploads`;

/**
 * tus addresses come back absolute; the one client wants paths below its base. An address on another
 * host or outside the API is refused, so the bearer token never travels anywhere else.
 */
function toClientPath(url: string): string {
  const parsed = new URL(url, window.location.href);
  if (parsed.origin !== window.location.origin || !parsed.pathname.startsWith(`${API_BASE}/`)) {
    throw new Error('The server answered with an upload address outside the portal.');
  }
  return parsed.pathname.slice(API_BASE.length);
}

class ClientResponse implements HttpResponse {
  constructor(private readonly response: AxiosResponse<unknown>) {}

  getStatus(): number {
    return this.response.status;
  }

  getHeader(name: string): string | undefined {
    const value: unknown = this.response.headers[name.toLowerCase()];
    return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  }

  getBody(): string {
    const data = this.response.data;
    return typeof data === 'string' ? data : data == null ? '' : JSON.stringify(data);
  }

  getUnderlyingObject(): AxiosResponse<unknown> {
    return this.response;
  }
}

class ClientRequest implements HttpRequest {
  private readonly headers: Record<string, string> = {};
  private readonly controller = new AbortController();
  private progress: (bytesSent: number) => void = () => undefined;

  constructor(
    private readonly method: string,
    private readonly url: string,
  ) {}

  getMethod(): string {
    return this.method;
  }

  getURL(): string {
    return this.url;
  }

  setHeader(header: string, value: string): void {
    this.headers[header] = value;
  }

  getHeader(header: string): string | undefined {
    return this.headers[header];
  }

  setProgressHandler(handler: (bytesSent: number) => void): void {
    this.progress = handler;
  }

  async send(body?: Blob | null): Promise<HttpResponse> {
    try {
      const response = await apiClient.request<unknown>({
        method: this.method,
        url: toClientPath(this.url),
        data: body ?? undefined,
        headers: this.headers,
        // Spec §9: uploads have no timeout, whatever their size.
        timeout: 0,
        signal: this.controller.signal,
        responseType: 'text',
        onUploadProgress: (event) => this.progress(event.loaded),
      });
      return new ClientResponse(response);
    } catch (error) {
      // tus-js-client decides on statuses itself; only a request that got no answer is an error to it.
      if (isAxiosError(error) && error.response) return new ClientResponse(error.response);
      throw error;
    }
  }

  abort(): Promise<void> {
    this.controller.abort();
    return Promise.resolve();
  }

  getUnderlyingObject(): AbortController {
    return this.controller;
  }
}

/**
 * tus requests go through the one axios instance, so the session's token is read for every request
 * (a tus upload address is a capability: the server checks the token on each one) and a 401 signs
 * the user out exactly as any other call does.
 */
export const apiClientHttpStack: HttpStack = {
  createRequest: (method, url) => new ClientRequest(method, url),
  getName: () => 'portal-api-client',
};
