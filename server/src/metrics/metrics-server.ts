// A worker (`npm run worker`) serves no API: when METRICS_PORT is set, this small server answers
// GET /metrics on it, to the METRICS_TOKEN bearer only (a worker has no sessions to check).
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.js';
import { bearerToken, isMetricsToken } from './scrape-token.js';

export interface MetricsServer {
  /** Where it answers: http://host:port/metrics. */
  url: string;
  close(): Promise<void>;
}

function answer(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ message }));
}

export async function serveMetrics(
  metrics: Metrics,
  opts: { host: string; port: number; token: string },
  onError: (err: unknown) => void,
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') return answer(res, 404, 'Resource not found');
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) return answer(res, 401, 'Authentication required');
    if (!isMetricsToken(token, opts.token)) return answer(res, 401, 'The token is not this worker’s METRICS_TOKEN');
    metrics.exposition().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
        res.end(text);
      },
      (err: unknown) => {
        onError(err);
        answer(res, 500, 'The metrics could not be read; see the worker’s log');
      },
    );
  });
  // Scrapes are small and quick: a client trickling its headers only holds a socket.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.listen(opts.port, opts.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
