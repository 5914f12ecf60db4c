// The STOW-RS part scanner: parts split at any chunk boundary come out byte for byte, and a part of
// 500 MB passes while the scanner never holds more than a chunk plus a delimiter (the API test's
// server runs in-process, so the bound is asserted here rather than by the server's RSS).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { heldBound, MalformedBodyError, readParts, stowBoundary } from './stow-parts.js';

const B = 'xyzBOUNDARYxyz';
const body = (parts: Buffer[]) =>
  Buffer.concat([...parts.flatMap((p) => [Buffer.from(`--${B}\r\nContent-Type: application/dicom\r\n\r\n`), p, Buffer.from('\r\n')]), Buffer.from(`--${B}--\r\n`)]);

// A plain generator: `for await` takes sync iterables too, one chunk per step.
function* chunked(data: Buffer, size: number): Generator<Buffer> {
  for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
}

/** Each chunk a turn of the event loop later, as a socket's would arrive. */
async function* arriving(source: Iterable<Buffer>): AsyncGenerator<Buffer> {
  for (const chunk of source) yield await Promise.resolve(chunk);
}

async function collect(source: Iterable<Buffer>): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const part of readParts(arriving(source), B)) {
    expect(part.headers.get('content-type')).toBe('application/dicom');
    const chunks: Buffer[] = [];
    for await (const c of part.body) chunks.push(Buffer.from(c));
    out.push(Buffer.concat(chunks));
  }
  return out;
}

describe('readParts', () => {
  it('gives each part byte for byte at every chunk size, even with CRLF and boundary-like bytes inside', async () => {
    const parts = [Buffer.from('first\r\n--xyzBOUNDARYx not quite'), Buffer.alloc(0), Buffer.from(`\r\n--${B}-not-at-line-start`.slice(2))];
    for (const size of [1, 2, 3, 7, 16, 1000]) expect(await collect(chunked(body(parts), size))).toEqual(parts);
  });

  it('refuses a body without a boundary or cut short', async () => {
    await expect(collect(chunked(Buffer.from('nothing here'), 4))).rejects.toBeInstanceOf(MalformedBodyError);
    const whole = body([Buffer.from('abc')]);
    await expect(collect(chunked(whole.subarray(0, whole.length - 12), 4))).rejects.toBeInstanceOf(MalformedBodyError);
  });

  it('streams a 500 MB part holding at most a chunk and a delimiter', async () => {
    const CHUNK = 64 * 1024;
    const TOTAL = 500 * 1024 * 1024;
    const filler = Buffer.alloc(CHUNK, 0x41);
    const expected = createHash('sha256');
    function* source(): Generator<Buffer> {
      yield Buffer.from(`--${B}\r\nContent-Type: application/dicom\r\n\r\n`);
      for (let sent = 0; sent < TOTAL; sent += CHUNK) {
        expected.update(filler);
        yield filler;
      }
      yield Buffer.from(`\r\n--${B}--\r\n`);
    }
    let largest = 0;
    let size = 0;
    const hash = createHash('sha256');
    for await (const part of readParts(arriving(source()), B)) {
      for await (const c of part.body) {
        largest = Math.max(largest, c.length);
        size += c.length;
        hash.update(c);
      }
    }
    expect(size).toBe(TOTAL);
    expect(hash.digest('hex')).toBe(expected.digest('hex'));
    // Every piece handed on is a view of at most what the scanner held: one chunk plus a delimiter.
    expect(largest).toBeLessThanOrEqual(CHUNK + B.length + 4);
    expect(largest).toBeLessThanOrEqual(heldBound(CHUNK, B));
  }, 120_000);
});

describe('stowBoundary', () => {
  it('reads quoted and unquoted boundaries and refuses other types', () => {
    expect(stowBoundary(`multipart/related; type="application/dicom"; boundary="${B}"`)).toEqual({ boundary: B });
    expect(stowBoundary(`Multipart/Related; boundary=${B}; type=application/dicom`)).toEqual({ boundary: B });
    expect(stowBoundary('application/dicom')).toHaveProperty('refused');
    expect(stowBoundary(`multipart/related; type="application/dicom+json"; boundary=${B}`)).toHaveProperty('refused');
    expect(stowBoundary(undefined)).toHaveProperty('refused');
  });
});
