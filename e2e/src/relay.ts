// A relay between the browser and the portal that can hold a request before it reaches the
// server, as `page.route` can, for the upload tests, and counts the tus bytes the server took.
// `page.route` makes Chromium hand every intercepted request's body to the test over the DevTools
// pipe: with 64 MiB tus chunks that took over a minute per PATCH on a busy machine.
// A held request's body stays in the sockets until it is released: the browser still sends what
// they take (up to 36 MiB here: net.ipv4.tcp_rmem's 32 MiB and tcp_wmem's 4 MiB), so a held body
// must be well over that for the upload to stand still, as a body held by `page.route` did.
import http, { type IncomingHttpHeaders } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { HeldRequests } from './ui.js';

type Matcher = (method: string, pathname: string, headers: IncomingHttpHeaders) => boolean;

interface Hold {
  matches: Matcher;
  arrive(): void;
  released: Promise<void>;
}

/** A tus PATCH the server answered: where it started and the bytes of its body. */
export interface Patched {
  offset: number;
  bytes: number;
}

export interface Relay {
  /** What the browser opens instead of the portal's own address. */
  url: string;
  /** Every tus PATCH that reached the server and was answered, in order. */
  patched: Patched[];
  hold(matches: Matcher): HeldRequests;
  /** Forgets every hold (after a test, so one that failed holding leaves none to the next). */
  reset(): void;
  close(): Promise<void>;
}

export async function startRelay(target: string): Promise<Relay> {
  const portal = new URL(target);
  const holds = new Set<Hold>();
  const patched: Patched[] = [];
  const agent = new http.Agent({ keepAlive: true });

  function forward(request: http.IncomingMessage, response: http.ServerResponse, read: Buffer[] = [], ended = false) {
    let bytes = 0;
    const upstream = http.request(
      { host: portal.hostname, port: portal.port, method: request.method, path: request.url, headers: request.headers, agent },
      (answer) => {
        if (request.method === 'PATCH') patched.push({ offset: Number(request.headers['upload-offset']), bytes });
        response.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    for (const part of read) {
      bytes += part.length;
      upstream.write(part);
    }
    if (ended) {
      upstream.end();
      return;
    }
    request.on('data', (part: Buffer) => (bytes += part.length));
    request.pipe(upstream);
  }

  const server = http.createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', portal).pathname;
    const hold = [...holds].find((h) => h.matches(request.method ?? '', pathname, request.headers));
    if (hold === undefined) return forward(request, response);
    hold.arrive();
    // Not read while held, so the browser's upload stands still as it would before the network.
    // Read whole once released: a request the browser abandoned meanwhile (a reload, a cancel)
    // ends aborted, not with its end, and nothing of it goes on to the server.
    void hold.released.then(() => {
      const read: Buffer[] = [];
      request.on('data', (part: Buffer) => read.push(part));
      request.once('end', () => forward(request, response, read, true));
      request.on('error', () => undefined);
      request.resume();
    });
  });

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    patched,
    hold(matches) {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let arrive!: () => void;
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const hold: Hold = { matches, arrive, released };
      holds.add(hold);
      return {
        arrived,
        release,
        dispose: () => {
          holds.delete(hold);
          return Promise.resolve();
        },
      };
    },
    reset() {
      holds.clear();
    },
    async close() {
      server.closeAllConnections();
      server.close();
      agent.destroy();
      await once(server, 'close');
    },
  };
}

/**
 * Holds the tus PATCH that starts at this offset before it reaches the server, so the upload
 * stands still mid-way with the chunks before it stored; released, it goes on to the real server.
 */
export function holdPatchAt(relay: Relay, offset: number): HeldRequests {
  return relay.hold((method, pathname, headers) => method === 'PATCH' && pathname.startsWith('/api/v1/uploads/') && Number(headers['upload-offset']) === offset);
}
