// The multipart/related body of a WADO-RS answer: every part's bytes, framed, in order, whether it
// was laid out in a slab with its neighbours or streamed; a part that cannot be read breaks the
// body rather than shortening it.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { multipartBody, type Part } from './wado-multipart.js';

const MiB = 1024 * 1024;

/** A part over `bytes`: read into place when `into`, else only opened (streamed in pieces). */
function part(bytes: Buffer, into: boolean, reads: { into: number; open: number }): Part {
  return {
    contentType: 'application/dicom',
    location: `/instances/${bytes.length}`,
    size: bytes.length,
    open: () => {
      reads.open += 1;
      return Promise.resolve(Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]));
    },
    ...(into
      ? {
          readInto: (target: Uint8Array) => {
            reads.into += 1;
            target.set(bytes);
            return Promise.resolve();
          },
        }
      : {}),
  };
}

function expected(boundary: string, parts: { bytes: Buffer; location: string }[]): Buffer {
  const pieces = parts.flatMap(({ bytes, location }) => [Buffer.from(`--${boundary}\r\nContent-Type: application/dicom\r\nContent-Location: ${location}\r\n\r\n`), bytes, Buffer.from('\r\n')]);
  return Buffer.concat([...pieces, Buffer.from(`--${boundary}--\r\n`)]);
}

describe('multipartBody', () => {
  it('sends small parts laid out in slabs and large ones streamed, byte for byte and in order', async () => {
    // Small ones filling more than one slab, one past the slab size, one empty, one that can only be opened.
    const sizes = [40_000, 300_000, 500_000, 400_000, 0, MiB + 7, 39_000, 700_000, 12_345];
    const blobs = sizes.map((size) => randomBytes(size));
    const reads = { into: 0, open: 0 };
    const parts = blobs.map((bytes, i) => part(bytes, i !== 8, reads));
    const body = await buffer(multipartBody('b0undary', parts));
    expect(body.equals(expected('b0undary', blobs.map((bytes) => ({ bytes, location: `/instances/${bytes.length}` }))))).toBe(true);
    // Every small part that can be read into place was (the empty one needs no read); the large one and the last were opened.
    expect(reads).toEqual({ into: 6, open: 2 });
  });

  it('breaks the body when a part cannot be read, never ends it short', async () => {
    const good = part(randomBytes(10_000), true, { into: 0, open: 0 });
    const broken: Part = { ...good, readInto: () => Promise.reject(new Error('the stored object is gone')) };
    await expect(buffer(multipartBody('b', [good, broken, good]))).rejects.toThrow('the stored object is gone');
  });
});
