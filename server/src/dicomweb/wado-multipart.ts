// A multipart/related answer (RFC 2387, PS3.18 8.7.3) written while it is sent: each part's bytes
// are opened only when the part before it has gone, and stream through with the response's
// backpressure, so a study of any size passes without being held in memory.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

export interface Part {
  contentType: string;
  /** Content-Location of the part, when it names a resource of its own. */
  location?: string;
  open(): Promise<AsyncIterable<Uint8Array>>;
}

export function newBoundary(): string {
  return `dicomweb-${randomBytes(12).toString('hex')}`;
}

/** The body of a multipart/related answer; a part that cannot be read ends it broken, never short. */
export function multipartBody(boundary: string, parts: Iterable<Part> | AsyncIterable<Part>): Readable {
  async function* body() {
    for await (const part of parts) {
      const headers = [`--${boundary}`, `Content-Type: ${part.contentType}`, ...(part.location ? [`Content-Location: ${part.location}`] : []), '', ''];
      yield Buffer.from(headers.join('\r\n'));
      for await (const chunk of await part.open()) yield chunk;
      yield Buffer.from('\r\n');
    }
    yield Buffer.from(`--${boundary}--\r\n`);
  }
  return Readable.from(body(), { objectMode: false });
}

/** One value sent alone (a client that asked for its type without multipart): its bytes as they are read. */
export function singleBody(open: () => Promise<AsyncIterable<Uint8Array>>): Readable {
  async function* body() {
    yield* await open();
  }
  return Readable.from(body(), { objectMode: false });
}
