// A tus request body whose client goes away before anyone reads it (tus still waiting for the
// upload's lock, say) fails quietly: the reason is kept for the reader, and nothing is thrown that
// would take the process down.
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TusRequestBody } from './tus-request-body.js';

const servers: http.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A server that wraps each request's body and hands it over, unread. */
async function serve(): Promise<{ port: number; bodies: AsyncIterator<TusRequestBody> }> {
  const arrived: TusRequestBody[] = [];
  let wake: (() => void) | undefined;
  const server = http.createServer((request) => {
    arrived.push(new TusRequestBody(request, 60_000, undefined));
    wake?.();
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const bodies: AsyncIterator<TusRequestBody> = {
    async next() {
      while (arrived.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return { value: arrived.shift()!, done: false };
    },
  };
  return { port: (server.address() as AddressInfo).port, bodies };
}

describe('a tus request body', () => {
  it('keeps why it failed when the client leaves before it is read, without an uncaught error', async () => {
    const { port, bodies } = await serve();
    const client = http.request({ port, host: '127.0.0.1', method: 'PATCH', path: '/api/v1/uploads/x', headers: { 'content-length': '100000' } });
    client.on('error', () => undefined);
    client.write(Buffer.alloc(1000));
    const { value: body } = await bodies.next();
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      client.destroy();
      await new Promise((resolve) => body.once('close', resolve));
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toEqual([]);
    expect(body.failure()).toBe('client');
    // A reader that comes later learns that the body failed.
    await expect(new Response(body.web).arrayBuffer()).rejects.toThrow();
  });
});
