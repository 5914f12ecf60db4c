import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';

/** The SHA-256 (hex) and length of everything `stream` yields. */
export async function hashStream(stream: Readable): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream) {
    const bytes = chunk as Buffer;
    hash.update(bytes);
    size += bytes.length;
  }
  return { sha256: hash.digest('hex'), size };
}

/** Passes bytes through unchanged and hashes them on the way. */
export class HashingPassThrough extends Transform {
  readonly #hash = createHash('sha256');
  size = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.#hash.update(chunk);
    this.size += chunk.length;
    this.push(chunk);
    done();
  }

  sha256(): string {
    return this.#hash.digest('hex');
  }
}

export function sameHash(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
