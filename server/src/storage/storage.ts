// The one contract every storage backend keeps (DESIGN §3, §6). Callers never learn where bytes
// live: the filesystem backend maps a key to a file under DATA_DIR/objects, an S3 backend maps it
// to an object written by multipart upload (complete = visible, abort on failure). For S3
// (s3-storage.ts): put/putFile = lib-storage Upload with `IfNoneMatch: '*'` (no overwrite), get =
// GetObject with Range, stat = HeadObject, delete = DeleteObject, list = ListObjectsV2,
// sweepIncomplete = ListMultipartUploads + AbortMultipartUpload for uploads untouched for the
// grace period, openLocal = a download into a capped local work area, checkAccess = HeadBucket.
import type { Readable } from 'node:stream';

/** Inclusive byte positions, as in an HTTP Range header: `{ start: 0, end: 0 }` is the first byte. */
export interface ByteRange {
  start: number;
  end: number;
}

/** Whole byte offsets, not backwards: what any object could answer, whatever its size. */
export function isWellFormed(range: ByteRange): boolean {
  return Number.isSafeInteger(range.start) && Number.isSafeInteger(range.end) && range.start >= 0 && range.start <= range.end;
}

/** The Buffer a `getBytes` with `into` reads into: `into` itself, which must be as long as the range. */
export function readTarget(into: Uint8Array, range: ByteRange): Buffer {
  const length = range.end - range.start + 1;
  if (into.byteLength !== length) throw new RangeError(`a buffer of ${into.byteLength} bytes cannot take a range of ${length}`);
  return Buffer.from(into.buffer, into.byteOffset, into.byteLength);
}

export interface PutOptions {
  /** Aborting rejects the put with the signal's reason and leaves no object and no temporary data. */
  signal?: AbortSignal;
  /**
   * false: the object is visible at once but may not survive a machine crash until `flush()`.
   * For derived data written in bulk (extracted entries), where one flush at the end replaces a
   * disk sync per object. Default true.
   */
  durable?: boolean;
}

export interface SweepOptions {
  /**
   * Only remove leftovers untouched for this long. At start-up of the only process writing to the
   * store pass nothing (everything incomplete is a leftover); when other processes may be writing,
   * pass a grace period longer than any stall an upload may survive.
   */
  olderThanMs?: number;
}

export interface ObjectInfo {
  size: number;
}

export interface ListedObject {
  key: string;
  size: number;
}

export interface LocalCopy {
  path: string;
  release(): Promise<void>;
}

export interface Storage {
  /**
   * Streams `body` into a new object. The object becomes visible only once every byte is durable;
   * until then (and forever, if the stream fails, the signal aborts or the process dies) `get` and
   * `stat` do not see it. Stored bytes are never rewritten: a key that already exists rejects with
   * ObjectExistsError and the existing object is left untouched. On any failure `body` is
   * destroyed, so a request it comes from is not left paused.
   */
  put(key: string, body: Readable, opts?: PutOptions): Promise<ObjectInfo>;

  /**
   * `put` for bytes already in memory (a small upload read whole): the same visibility, durability
   * and overwrite rules, written in one call rather than through a stream.
   */
  putBytes(key: string, bytes: Uint8Array, opts?: PutOptions): Promise<ObjectInfo>;

  /**
   * Moves an already written local file into the store under `key`, without copying when the file
   * is on the same filesystem as the store. On success `localPath` no longer exists; on failure it
   * is left where it was for the caller to remove. Same visibility and overwrite rules as `put`.
   */
  putFile(key: string, localPath: string, opts?: PutOptions): Promise<ObjectInfo>;

  /**
   * Opens an object for reading, whole or one inclusive range. Rejects with ObjectNotFoundError for
   * a missing key and InvalidRangeError for a range outside the object, before any byte is sent.
   */
  get(key: string, range?: ByteRange): Promise<Readable>;

  /**
   * One inclusive range read whole into memory, for small ones (a DICOMweb part of a few hundred
   * KiB): one read instead of a stream's machinery. The same refusals as `get`. With `into` (as long
   * as the range), the bytes are read into it and a Buffer over it is answered: a caller laying out
   * many small ranges in one buffer then allocates and copies nothing per range.
   */
  getBytes(key: string, range: ByteRange, into?: Uint8Array): Promise<Buffer>;

  /**
   * The object as a local file, for tools that need a path (the archive extractor). The
   * filesystem backend answers the stored file itself; a remote backend would download a copy.
   * Call `release` when done; the file must not be modified.
   */
  openLocal(key: string): Promise<LocalCopy>;

  /** Makes every object written with `durable: false` durable. */
  flush(): Promise<void>;

  /** The object's size, or null when no complete object has that key. */
  stat(key: string): Promise<ObjectInfo | null>;

  /** Removes an object; removing a missing key succeeds, so a retried delete is harmless. */
  delete(key: string): Promise<void>;

  /**
   * Every complete object whose key starts with `prefix` (a key followed by '/', e.g.
   * 'entries/12/'; '' for all), in no particular order. For finding objects no database row
   * points to, e.g. a processing attempt that stored entries and then died.
   */
  list(prefix: string): AsyncIterable<ListedObject>;

  /** Removes what interrupted puts left behind and answers how many leftovers were removed. */
  sweepIncomplete(opts?: SweepOptions): Promise<number>;

  /**
   * Resolves when the store can be used; rejects with StorageUnavailableError, whose message says
   * in words what is wrong and which setting to check, when not. For start-up and readiness.
   */
  checkAccess(): Promise<void>;
}
