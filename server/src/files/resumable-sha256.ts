// The SHA-256 of a resumable (tus) upload, taken as its chunks arrive, so that its last byte does
// not cost reading the whole file back (a second pass over gigabytes, ~1.6 s of CPU per GiB:
// docs/performance.md). The hash is kept in memory per unfinished upload; when it cannot be trusted
// to cover exactly the bytes stored (the server restarted, a chunk failed partway, two requests
// overlapped) it is dropped, and the next chunk first hashes what is already stored, once.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

interface Progress {
  hash: Hash;
  /** Bytes hashed so far, from the first. */
  bytes: number;
  /** A chunk is passing through; its end is only known once the store answers. */
  open: boolean;
}

export class ResumableSha256 {
  readonly #uploads = new Map<string, Progress>();

  /**
   * A pass-through for a chunk that starts at byte `offset` of upload `id`, hashing it on the way;
   * when no hash has reached `offset`, the bytes before it are first read from `file`. Undefined
   * when the chunk cannot be hashed in order (another chunk is still open): the upload then falls
   * back to reading the file when it finishes. Every tap must be followed by `settle`.
   */
  async tap(id: string, file: string, offset: number): Promise<Transform | undefined> {
    if (!Number.isSafeInteger(offset) || offset < 0) {
      this.#uploads.delete(id);
      return undefined;
    }
    let progress = this.#uploads.get(id);
    if (progress === undefined || progress.open || progress.bytes !== offset) {
      const overlapping = progress?.open === true;
      this.#uploads.delete(id);
      if (overlapping) return undefined;
      let hash: Hash;
      try {
        hash = await hashPrefix(file, offset);
      } catch {
        // The store will refuse this chunk or answer for it; the upload's last byte reads the file.
        return undefined;
      }
      // Another chunk of the same upload began meanwhile: neither can be hashed in order.
      if (this.#uploads.has(id)) {
        this.#uploads.delete(id);
        return undefined;
      }
      progress = { hash, bytes: offset, open: false };
      this.#uploads.set(id, progress);
    }
    const current = progress;
    current.open = true;
    return new Transform({
      transform(chunk: Buffer, _encoding, done) {
        current.hash.update(chunk);
        current.bytes += chunk.length;
        done(null, chunk);
      },
    });
  }

  /**
   * The store answered the chunk: `stored` is the upload's offset now (undefined if it failed). A
   * hash that went past what was stored, or stopped short of it, is dropped.
   */
  settle(id: string, stored: number | undefined): void {
    const progress = this.#uploads.get(id);
    if (progress === undefined) return;
    progress.open = false;
    if (stored === undefined || progress.bytes !== stored) this.#uploads.delete(id);
  }

  /** The SHA-256 of the first `size` bytes, if exactly those were hashed; then forgets the upload. */
  digest(id: string, size: number): string | undefined {
    const progress = this.#uploads.get(id);
    this.#uploads.delete(id);
    if (progress === undefined || progress.open || progress.bytes !== size) return undefined;
    return progress.hash.digest('hex');
  }

  forget(id: string): void {
    this.#uploads.delete(id);
  }
}

async function hashPrefix(file: string, bytes: number): Promise<Hash> {
  const hash = createHash('sha256');
  if (bytes === 0) return hash;
  let read = 0;
  await pipeline(
    createReadStream(file, { start: 0, end: bytes - 1, highWaterMark: 1024 * 1024 }),
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        read += chunk.length;
        done();
      },
    }),
  );
  // A file shorter than the offset cannot be continued; tus refuses the chunk, and this hash must
  // not stand for bytes it never saw.
  if (read !== bytes) throw new Error(`the stored upload has ${read} bytes, not ${bytes}`);
  return hash;
}
