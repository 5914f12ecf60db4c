// A proxy between the uploader and the portal that counts the upload bytes the portal receives
// (PATCH bodies) and lets them through at a set pace, so that a test can kill the uploader while
// an upload is half-way and then count what the resumed run sends.
import { once } from 'node:events';
import http from 'node:http';

export interface CountingProxy {
  url: string;
  /** PATCH body bytes passed on to the portal since the last reset. */
  patched(): number;
  reset(): void;
  close(): Promise<void>;
}

export async function startCountingProxy(target: string, bytesPerSecond: number): Promise<CountingProxy> {
  let patched = 0;
  const upstream = new URL(target);
  const server = http.createServer((request, response) => {
    const outgoing = http.request(
      { host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    outgoing.on('error', () => response.destroy());
    request.on('close', () => {
      if (!request.complete) outgoing.destroy();
    });
    const counting = request.method === 'PATCH';
    request.on('data', (chunk: Buffer) => {
      if (counting) patched += chunk.length;
      outgoing.write(chunk);
      // The pace: hold the next read for as long as this chunk takes at bytesPerSecond.
      request.pause();
      setTimeout(() => request.resume(), (chunk.length / bytesPerSecond) * 1000);
    });
    request.on('end', () => outgoing.end());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy got no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    patched: () => patched,
    reset: () => (patched = 0),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
