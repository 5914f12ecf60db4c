// Counts failed storage operations around whichever backend createStorage chose, without knowing
// it: every method is the backend's own, and only a rejection is looked at on its way through.
import type { Readable } from 'node:stream';
import type { ByteRange, ListedObject, LocalCopy, ObjectInfo, PutOptions, Storage, SweepOptions } from '../storage/storage.js';
import { InvalidKeyError, InvalidRangeError, ObjectExistsError, ObjectNotFoundError } from '../storage/storage-errors.js';

export type StorageFailure = (operation: string, error: 'not_found' | 'invalid_key' | 'failed') => void;

// The source of an upload closing early (the client went away): the caller's doing, not the store's.
const CALLER_GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE', 'ABORT_ERR']);

/**
 * Which failures are the store's. Not counted: a caller's abort; a refusal carrying a client status
 * (an upload too large, not what its name says, or stalled, failing the body it streams); a range
 * outside the object (the client's Range); an existing key (the no-overwrite rule doing its job;
 * processing relies on it after a crash).
 */
function classify(err: unknown, signal: AbortSignal | undefined): 'not_found' | 'invalid_key' | 'failed' | undefined {
  if (signal?.aborted) return undefined;
  if (err instanceof InvalidRangeError || err instanceof ObjectExistsError) return undefined;
  if (err instanceof ObjectNotFoundError) return 'not_found';
  if (err instanceof InvalidKeyError) return 'invalid_key';
  const { status, code, name } = (err ?? {}) as { status?: unknown; code?: unknown; name?: unknown };
  if (typeof status === 'number' && status < 500) return undefined;
  if (name === 'AbortError' || (typeof code === 'string' && CALLER_GONE.has(code))) return undefined;
  return 'failed';
}

class CountingStorage implements Storage {
  constructor(
    private readonly inner: Storage,
    private readonly failed: StorageFailure,
  ) {}

  #watch<T>(operation: string, work: Promise<T>, signal?: AbortSignal): Promise<T> {
    return work.catch((err: unknown) => {
      const kind = classify(err, signal);
      if (kind) this.failed(operation, kind);
      throw err;
    });
  }

  put(key: string, body: Readable, opts?: PutOptions): Promise<ObjectInfo> {
    return this.#watch('put', this.inner.put(key, body, opts), opts?.signal);
  }

  putBytes(key: string, bytes: Uint8Array, opts?: PutOptions): Promise<ObjectInfo> {
    return this.#watch('put', this.inner.putBytes(key, bytes, opts), opts?.signal);
  }

  putFile(key: string, localPath: string, opts?: PutOptions): Promise<ObjectInfo> {
    return this.#watch('put_file', this.inner.putFile(key, localPath, opts), opts?.signal);
  }

  get(key: string, range?: ByteRange): Promise<Readable> {
    return this.#watch('get', this.inner.get(key, range));
  }

  getBytes(key: string, range: ByteRange, into?: Uint8Array): Promise<Buffer> {
    return this.#watch('get', this.inner.getBytes(key, range, into));
  }

  openLocal(key: string): Promise<LocalCopy> {
    return this.#watch('open_local', this.inner.openLocal(key));
  }

  flush(): Promise<void> {
    return this.#watch('flush', this.inner.flush());
  }

  stat(key: string): Promise<ObjectInfo | null> {
    return this.#watch('stat', this.inner.stat(key));
  }

  delete(key: string): Promise<void> {
    return this.#watch('delete', this.inner.delete(key));
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    try {
      yield* this.inner.list(prefix);
    } catch (err) {
      const kind = classify(err, undefined);
      if (kind) this.failed('list', kind);
      throw err;
    }
  }

  sweepIncomplete(opts?: SweepOptions): Promise<number> {
    return this.#watch('sweep', this.inner.sweepIncomplete(opts));
  }

  checkAccess(): Promise<void> {
    return this.#watch('check_access', this.inner.checkAccess());
  }
}

/**
 * The same store, telling `failed` about every operation that rejects. A read that fails after
 * its stream was handed over (a disk or network error midway) is the reader's to see: a stream
 * destroyed because the client went away looks the same from here.
 */
export function countStorageErrors(storage: Storage, failed: StorageFailure): Storage {
  return new CountingStorage(storage, failed);
}
