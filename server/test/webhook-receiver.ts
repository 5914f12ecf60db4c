// A webhook receiver on a loopback port, as a customer would run one: it keeps every request (body
// as received, headers) and answers what the test scripts for each path (204 by default).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export type HookAnswer = number | 'hang';

export interface TestReceiver {
  url: string;
  received: ReceivedHook[];
  /** What `path` answers from now on: a status, or never answering. */
  answer(path: string, answer: HookAnswer): void;
  /** Waits until `predicate` holds for the requests received so far (10 s at most). */
  waitFor(predicate: (received: ReceivedHook[]) => boolean, timeoutMs?: number): Promise<ReceivedHook[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<TestReceiver> {
  const received: ReceivedHook[] = [];
  const answers = new Map<string, HookAnswer>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
      received.push({ path, headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const answer = answers.get(path) ?? 204;
      if (answer === 'hang') return;
      response.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answer: (path, answer) => void answers.set(path, answer),
    async waitFor(predicate, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > until) throw new Error(`the receiver did not get what was awaited; it got: ${received.map((r) => r.path).join(', ') || 'nothing'}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return received;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
