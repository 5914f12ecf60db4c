// A multipart/related answer (RFC 2387, PS3.18 8.7.3) written while it is sent: each part's bytes
// are opened only when the part before it has gone, and stream through with the response's
// backpressure, so a study of any size passes without being held in memory.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

/** A part's bytes: read whole (a small instance) or streamed. */
export type PartBytes = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

export interface Part {
  contentType: string;
  /** Content-Location of the part, when it names a resource of its own. */
  location?: string;
  /** Its size when known, which bounds how much is read ahead. */
  size?: number;
  open(): Promise<PartBytes>;
}

export function newBoundary(): string {
  return `dicomweb-${randomBytes(12).toString('hex')}`;
}

/**
 * Parts opened ahead of the one being sent: opening and reading a stored object costs a few trips
 * to the storage (open, read, close; a request to S3), which for a series of small instances would
 * otherwise each wait for the part before. At most this many parts, and this many bytes of them
 * (a part of unknown size counted as a stream's first buffer), are held ahead.
 */
const OPENED_AHEAD = 64;
const AHEAD_BYTES = 8 * 1024 * 1024;
const STREAM_BUFFER = 64 * 1024;

/** The body of a multipart/related answer; a part that cannot be read ends it broken, never short. */
export function multipartBody(boundary: string, parts: readonly Part[]): Readable {
  const opened: Promise<PartBytes>[] = [];
  // What a part opened ahead holds: a small one whole, a streamed one its first buffer.
  const held = (part: Part) => Math.min(part.size ?? STREAM_BUFFER, 1024 * 1024);
  // Bytes of the parts opened before their turn and not yet being sent.
  let aheadBytes = 0;
  const openAhead = (sending: number) => {
    while (opened.length < parts.length) {
      const ahead = opened.length - sending; // 0: the part about to be sent
      if (ahead > 0 && (ahead > OPENED_AHEAD || aheadBytes >= AHEAD_BYTES)) break;
      const part = parts[opened.length]!;
      if (ahead > 0) aheadBytes += held(part);
      const next = part.open();
      // A streamed part's first bytes are read ahead too (up to the stream's buffer, 64 KiB).
      next.then(
        (stream) => {
          if (stream instanceof Readable) stream.read(0);
        },
        // Failures are met where the part is sent; until then they must not count as unhandled.
        () => undefined,
      );
      opened.push(next);
    }
  };
  async function* body() {
    let sent = 0;
    try {
      for (; sent < parts.length; sent++) {
        const part = parts[sent]!;
        if (sent < opened.length) aheadBytes -= held(part); // its turn: no longer ahead
        openAhead(sent);
        const headers = [`--${boundary}`, `Content-Type: ${part.contentType}`, ...(part.location ? [`Content-Location: ${part.location}`] : []), '', ''];
        yield Buffer.from(headers.join('\r\n'));
        for await (const chunk of await opened[sent]!) yield chunk;
        yield Buffer.from('\r\n');
      }
      yield Buffer.from(`--${boundary}--\r\n`);
    } finally {
      // An answer cut short (the client went away) closes what was opened ahead.
      for (const ahead of opened.slice(sent + 1)) void ahead.then((stream) => (stream as { destroy?: () => void }).destroy?.(), () => undefined);
    }
  }
  return Readable.from(coalesced(body()), { objectMode: false });
}

/** Writes of at least this size: a part's boundary, headers and small body go out in one write, not three. */
const WRITE_BYTES = 64 * 1024;

/** The same bytes in fewer, larger pieces: each piece is a write (and a chunk of the chunked encoding) on the socket. */
async function* coalesced(source: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  let pending: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of source) {
    pending.push(chunk);
    size += chunk.length;
    if (size >= WRITE_BYTES) {
      yield pending.length === 1 ? pending[0]! : Buffer.concat(pending, size);
      pending = [];
      size = 0;
    }
  }
  if (size > 0) yield Buffer.concat(pending, size);
}

/** One value sent alone (a client that asked for its type without multipart): its bytes as they are read. */
export function singleBody(open: () => Promise<PartBytes>): Readable {
  async function* body() {
    yield* await open();
  }
  return Readable.from(body(), { objectMode: false });
}
