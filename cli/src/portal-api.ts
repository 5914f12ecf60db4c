// The portal's JSON API as the uploader calls it: the token on every request, and every failure
// turned into a CliError with the portal's own words and the exit code its status stands for.
import { setTimeout as sleep } from 'node:timers/promises';
import { CliError, EXIT, type ExitCode } from './exit-codes.js';

/** Backoff between attempts after a network error or a 5xx (as the web app's uploads). */
export const RETRY_DELAYS_MS = [1_000, 3_000, 5_000, 10_000, 20_000];

export function exitCodeOf(status: number): ExitCode {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status >= 500 || status === 408 || status === 423) return EXIT.network;
  return EXIT.refused;
}

/** Worth asking again: the link, the server's load, or tus's transient answers; any other refusal is final. */
export function isTransient(error: unknown): boolean {
  return error instanceof CliError && error.code === EXIT.network;
}

async function messageOf(answer: Response): Promise<string> {
  const text = await answer.text().catch(() => '');
  try {
    const message = (JSON.parse(text) as { message?: unknown }).message;
    if (typeof message === 'string' && message) return message;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  return `The portal answered ${answer.status} ${answer.statusText}`.trim();
}

export async function failureOf(answer: Response, doing: string): Promise<CliError> {
  return new CliError(exitCodeOf(answer.status), `${doing}: ${await messageOf(answer)}`);
}

/** fetch's options with plain headers; `duplex` is what Node's fetch needs for a streamed body. */
export type PortalRequest = Omit<RequestInit, 'headers'> & { headers?: Record<string, string>; duplex?: 'half' };

export class PortalApi {
  constructor(
    readonly base: URL,
    private readonly token: string,
    readonly signal: AbortSignal,
  ) {}

  /** An address of the API (`/api/v1/…`), or an upload's Location made absolute. */
  address(path: string): URL {
    const root = this.base.pathname.replace(/\/$/, '');
    return new URL(path.startsWith('/api/') ? `${root}${path}` : `${root}/api/v1${path}`, this.base);
  }

  /** One request; a network failure is a CliError (network) in words, never fetch's own message. */
  async request(url: URL, init: PortalRequest = {}): Promise<Response> {
    try {
      return await fetch(url, { ...init, signal: this.signal, headers: { ...init.headers, authorization: `Bearer ${this.token}` } });
    } catch (error) {
      if (this.signal.aborted) throw error;
      throw new CliError(EXIT.network, `The portal at ${this.base.origin} could not be reached; check the address and the network, then run the same command again.`);
    }
  }

  async json<T>(method: string, path: string, doing: string, body?: unknown): Promise<T> {
    const answer = await this.withRetries(() =>
      this.request(this.address(path), {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      }).then(async (a) => (a.ok ? a : Promise.reject(await failureOf(a, doing)))),
    );
    return (await answer.json()) as T;
  }

  /** The first row of a `{data:[…]}` answer. */
  async one<T>(method: string, path: string, doing: string, body?: unknown): Promise<T> {
    const { data } = await this.json<{ data: T[] }>(method, path, doing, body);
    const row = data[0];
    if (row === undefined) throw new CliError(EXIT.unexpected, `${doing}: the portal’s answer was empty.`);
    return row;
  }

  /** Runs `attempt` again after a transient failure, waiting longer each time; the last failure is thrown. */
  async withRetries<T>(attempt: () => Promise<T>, onRetry?: (error: CliError, delayMs: number) => void): Promise<T> {
    for (let i = 0; ; i++) {
      try {
        return await attempt();
      } catch (error) {
        const delay = RETRY_DELAYS_MS[i];
        if (!isTransient(error) || delay === undefined || this.signal.aborted) throw error;
        onRetry?.(error as CliError, delay);
        await sleep(delay, undefined, { signal: this.signal });
      }
    }
  }
}
