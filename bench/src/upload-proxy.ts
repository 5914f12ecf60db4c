// A TCP relay in front of the portal for the resume check: it counts every byte that reaches the
// server, and can cut every connection once a given number has gone through, as a lost network
// would in the middle of a chunk.
import net from 'node:net';

export interface Relay {
  port: number;
  /** Bytes passed to the server so far (request lines, headers and bodies). */
  bytesToServer(): number;
  /** Cuts all connections once this many bytes (counted from now) have reached the server. */
  cutAfter(bytes: number): void;
  close(): Promise<void>;
}

export function startRelay(targetPort: number): Promise<Relay> {
  let forwarded = 0;
  let cutAt = Infinity;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      const room = cutAt - forwarded;
      if (chunk.length >= room) {
        if (room > 0) upstream.write(chunk.subarray(0, room));
        forwarded += Math.max(room, 0);
        cutAt = Infinity;
        // Let the last bytes leave before the connections go, as when a link drops.
        upstream.end(() => setImmediate(() => {
          for (const s of sockets) s.destroy();
          sockets.clear();
        }));
        client.destroy();
        return;
      }
      forwarded += chunk.length;
      if (!upstream.write(chunk)) client.pause();
    });
    upstream.on('drain', () => client.resume());
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address !== null ? address.port : 0,
        bytesToServer: () => forwarded,
        cutAfter: (bytes) => {
          cutAt = forwarded + bytes;
        },
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
