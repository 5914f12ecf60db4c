// A multipart/related answer (RFC 2387, PS3.18 8.7.3) written while it is sent: small parts are
// read a few MiB ahead, laid out together in buffers with their framing; large ones stream through
// with the response's backpressure, so a study of any size passes without being held in memory.
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
  /** Reads its `size` bytes into `target` (exactly that long): a small part is then laid out with its neighbours. */
  readInto?(target: Uint8Array): Promise<void>;
}

export function newBoundary(): string {
  return `dicomweb-${randomBytes(12).toString('hex')}`;
}

/**
 * Units opened ahead of the one being sent: opening and reading a stored object costs a few trips
 * to the storage (open, read, close; a request to S3), which for a series of small instances would
 * otherwise each wait for the one before. At most this many units, and this many bytes of them
 * (a streamed part counted as what it reads ahead), are held ahead.
 */
const OPENED_AHEAD = 64;
const AHEAD_BYTES = 8 * 1024 * 1024;
const STREAM_BUFFER = 64 * 1024;
/**
 * Small parts that can be read into place are laid out together in buffers of about this size,
 * their boundaries and headers written around them: a series of CT slices then costs a few
 * allocations instead of two per slice (its buffer and a copy into the socket's write), which was
 * most of the server's CPU for a series' retrieval (docs/performance.md, DICOMweb).
 */
const SLAB_BYTES = 1024 * 1024;

/** What is sent in turn: a slab of small parts with their framing, or one streamed part with its own. */
interface Unit {
  /** Bytes it holds when opened before its turn. */
  held: number;
  open(): Promise<PartBytes & { destroy?: () => void }>;
}

const CRLF = Buffer.from('\r\n');

function partHead(boundary: string, part: Part): string {
  return [`--${boundary}`, `Content-Type: ${part.contentType}`, ...(part.location ? [`Content-Location: ${part.location}`] : []), '', ''].join('\r\n');
}

/** Small parts in one buffer: each head written and each body read into its place, all at once. */
function slab(members: readonly { part: Part; head: string }[], size: number): Unit {
  return {
    held: size,
    async open() {
      const bytes = Buffer.allocUnsafe(size);
      const reads: Promise<void>[] = [];
      let at = 0;
      for (const { part, head } of members) {
        at += bytes.write(head, at);
        const length = part.size!;
        if (length > 0) reads.push(part.readInto!(bytes.subarray(at, at + length)));
        at += length;
        at += CRLF.copy(bytes, at);
      }
      await Promise.all(reads);
      return [bytes];
    },
  };
}

function streamed(part: Part, head: string): Unit {
  return {
    // A small part read whole holds its size; a streamed one its first buffer, at most 1 MiB.
    held: Math.min(part.size ?? STREAM_BUFFER, 1024 * 1024),
    async open() {
      const bytes = await part.open();
      // A streamed part's first bytes are read ahead too (up to the stream's buffer, 64 KiB).
      if (bytes instanceof Readable) bytes.read(0);
      return {
        async *[Symbol.asyncIterator]() {
          yield Buffer.from(head);
          yield* bytes;
          yield CRLF;
        },
        destroy: () => (bytes as { destroy?: () => void }).destroy?.(),
      };
    },
  };
}

/** The parts as units: runs of small parts of known size that read into place become slabs. */
function layOut(boundary: string, parts: readonly Part[]): Unit[] {
  const units: Unit[] = [];
  let run: { part: Part; head: string }[] = [];
  let runBytes = 0;
  const close = () => {
    if (run.length > 0) units.push(slab(run, runBytes));
    run = [];
    runBytes = 0;
  };
  for (const part of parts) {
    const head = partHead(boundary, part);
    if (part.readInto === undefined || part.size === undefined || part.size > SLAB_BYTES) {
      close();
      units.push(streamed(part, head));
      continue;
    }
    const bytes = Buffer.byteLength(head) + part.size + CRLF.length;
    if (runBytes + bytes > SLAB_BYTES) close();
    run.push({ part, head });
    runBytes += bytes;
  }
  close();
  return units;
}

/** The body of a multipart/related answer; a part that cannot be read ends it broken, never short. */
export function multipartBody(boundary: string, parts: readonly Part[]): Readable {
  const units = layOut(boundary, parts);
  const opened: ReturnType<Unit['open']>[] = [];
  // Bytes of the units opened before their turn and not yet being sent.
  let aheadBytes = 0;
  const openAhead = (sending: number) => {
    while (opened.length < units.length) {
      const ahead = opened.length - sending; // 0: the unit about to be sent
      if (ahead > 0 && (ahead > OPENED_AHEAD || aheadBytes >= AHEAD_BYTES)) break;
      const unit = units[opened.length]!;
      if (ahead > 0) aheadBytes += unit.held;
      const next = unit.open();
      // Failures are met where the unit is sent; until then they must not count as unhandled.
      next.catch(() => undefined);
      opened.push(next);
    }
  };
  async function* body() {
    let sent = 0;
    try {
      for (; sent < units.length; sent++) {
        if (sent < opened.length) aheadBytes -= units[sent]!.held; // its turn: no longer ahead
        openAhead(sent);
        yield* await opened[sent]!;
      }
      yield Buffer.from(`--${boundary}--\r\n`);
    } finally {
      // An answer cut short (the client went away) closes what was opened ahead.
      for (const ahead of opened.slice(sent + 1)) void ahead.then((bytes) => bytes.destroy?.(), () => undefined);
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
