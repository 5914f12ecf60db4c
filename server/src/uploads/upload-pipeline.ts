// An upload streams through the server once (DESIGN §6): the bytes go straight into storage while
// their SHA-256 (on a worker thread, sha256-worker.ts), size and first bytes are taken on the way,
// so a 4 GiB file costs no more memory than a 4 KiB one. Backpressure from the disk reaches the
// client through pipeline().
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { pipeline, Transform, Writable, type Readable, type TransformCallback } from 'node:stream';
import { pipeline as pipelineAsync } from 'node:stream/promises';
import { AppError } from '../errors/app-error.js';
import { describeBytes } from '../quota/index.js';
import type { Storage } from '../storage/storage.js';
import { startSha256, type Sha256Job } from './sha256-worker.js';

/** How many leading bytes are kept for content-kind detection (DICOM's magic sits at 128–131). */
export const UPLOAD_HEAD_BYTES = 4096;

export class UploadTooLargeError extends AppError {
  constructor(readonly maxBytes: number) {
    super(413, `The file is larger than the maximum upload size of ${describeBytes(maxBytes)}`);
    this.name = 'UploadTooLargeError';
  }
}

/** The client went away or sent a broken body before the end of the file; nothing was stored. */
export class UploadInterruptedError extends AppError {
  constructor(options?: { cause: unknown }) {
    super(400, 'The upload was interrupted before the end of the file');
    this.name = 'UploadInterruptedError';
    if (options) this.cause = options.cause;
  }
}

export interface StoreUploadInput {
  /**
   * The file's bytes, e.g. `part.file` from @fastify/multipart. When its `limits.fileSize` cuts the
   * file short it sets `truncated`; that is refused like any other oversize file.
   */
  source: Readable & { truncated?: boolean };
  storage: Storage;
  /** A server-made key (see storage/object-key.ts), never derived from the client's file name. */
  key: string;
  /** More bytes than this rejects with UploadTooLargeError (413) and stores nothing. */
  maxBytes: number;
  /**
   * Called once with the first UPLOAD_HEAD_BYTES bytes (fewer for a shorter file), before the object can
   * become visible. Throwing (e.g. a 415 for content that does not match its extension) stops the
   * upload, stores nothing, and rejects with what was thrown.
   */
  checkHead?: (head: Buffer) => void;
  /** Aborting stops the upload, stores nothing, and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** About how many bytes will come (a request's Content-Length), when known: small ones are hashed inline. */
  expectedBytes?: number;
}

export interface StoredUpload {
  key: string;
  size: number;
  /** Lower-case hex. */
  sha256: string;
  /** The first UPLOAD_HEAD_BYTES bytes, or all of them for a shorter file (none when a stored file had nothing to check). */
  head: Buffer;
}

/**
 * Streams `source` into `storage` under `key` once. Resolves when the object is durable and
 * visible. Rejects, with nothing left in storage, with UploadTooLargeError (413),
 * UploadInterruptedError (400: the source failed or closed early), whatever `checkHead` threw,
 * the signal's reason, or the storage's own error (a 500: disk full, key already used).
 */
export async function storeUpload(input: StoreUploadInput): Promise<StoredUpload> {
  const { source, storage, key, maxBytes } = input;
  const meter = new UploadMeter(maxBytes, () => source.truncated === true, input.checkHead, input.expectedBytes);

  // Which side failed first decides the error: the source closing before its end means the client
  // (or the multipart parser) gave up; a failure downstream closes the source only afterwards.
  let sourceEnded = false;
  let interrupted = false;
  source.once('end', () => (sourceEnded = true));
  const sourceGaveUp = () => {
    if (!sourceEnded && !meter.destroyed) interrupted = true;
  };
  source.once('error', sourceGaveUp);
  source.once('close', sourceGaveUp);
  // Failed already (the parser found the body cut short while the project was being checked).
  if (source.destroyed) sourceGaveUp();
  pipeline(source, meter, () => undefined);

  try {
    const { size } = await storage.put(key, meter, input.signal ? { signal: input.signal } : {});
    return { key, size, sha256: await meter.sha256(), head: meter.head() };
  } catch (err) {
    meter.cancel();
    if (interrupted && !(err instanceof AppError)) throw new UploadInterruptedError({ cause: err });
    throw err;
  }
}

export interface StoreLocalFileInput extends Omit<StoreUploadInput, 'source'> {
  /** A file already written in full on this machine (a finished tus upload); it is moved, not copied. */
  path: string;
  /**
   * The file's SHA-256 when it was already computed over exactly these bytes as they arrived: the
   * file is then not read again, only its size and first bytes are checked.
   */
  sha256?: string;
  /** false: moved in without an fsync of its own; the caller flushes storage before anyone can see it. */
  durable?: boolean;
  /** The file's size when its writer knows it (with `sha256` and no `checkHead`, the file is then not even looked at). */
  size?: number;
}

/**
 * The same checks as storeUpload (size limit, SHA-256, `checkHead`), for bytes that already sit in
 * a local file: it is read once to measure it, then moved into storage under `key` (durable before
 * visible; no copy when on the same filesystem). On success `path` is gone; on failure it is left
 * where it was and nothing is stored.
 */
export async function storeLocalFile(input: StoreLocalFileInput): Promise<StoredUpload> {
  if (input.sha256 !== undefined) return storeMeasuredFile(input, input.sha256);
  const meter = new UploadMeter(input.maxBytes, () => false, input.checkHead);
  const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
  let sha256: string;
  try {
    await pipelineAsync(createReadStream(input.path), meter, discard, input.signal ? { signal: input.signal } : {});
    sha256 = await meter.sha256();
  } catch (err) {
    meter.cancel();
    throw err;
  }
  const { size } = await input.storage.putFile(input.key, input.path, { ...(input.signal ? { signal: input.signal } : {}), durable: input.durable ?? true });
  return { key: input.key, size, sha256, head: meter.head() };
}

async function storeMeasuredFile(input: StoreLocalFileInput, sha256: string): Promise<StoredUpload> {
  // Nothing to check in its first bytes (a file of a delivery): it is not opened at all.
  if (input.checkHead === undefined) return storeUnread(input, sha256);
  const { size: length, head } = await readFileHead(input.path);
  if (length > input.maxBytes) throw new UploadTooLargeError(input.maxBytes);
  input.checkHead(head);
  const { size } = await input.storage.putFile(input.key, input.path, { ...(input.signal ? { signal: input.signal } : {}), durable: input.durable ?? true });
  return { key: input.key, size, sha256, head };
}

async function storeUnread(input: StoreLocalFileInput, sha256: string): Promise<StoredUpload> {
  if ((input.size ?? (await stat(input.path)).size) > input.maxBytes) throw new UploadTooLargeError(input.maxBytes);
  const { size } = await input.storage.putFile(input.key, input.path, { ...(input.signal ? { signal: input.signal } : {}), durable: input.durable ?? true });
  return { key: input.key, size, sha256, head: Buffer.alloc(0) };
}

/** A local file's size and first UPLOAD_HEAD_BYTES bytes (fewer for a shorter file): what the content check reads. */
export async function readFileHead(path: string): Promise<{ size: number; head: Buffer }> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const buffer = Buffer.alloc(UPLOAD_HEAD_BYTES);
    const { bytesRead } = await file.read(buffer, 0, UPLOAD_HEAD_BYTES, 0);
    return { size, head: buffer.subarray(0, bytesRead) };
  } finally {
    await file.close();
  }
}

class UploadMeter extends Transform {
  #size = 0;
  readonly #hash: Sha256Job;
  readonly #headParts: Buffer[] = [];
  #headLength = 0;
  #headChecked = false;

  constructor(
    private readonly maxBytes: number,
    private readonly truncated: () => boolean,
    private readonly checkHead: ((head: Buffer) => void) | undefined,
    expectedBytes?: number,
  ) {
    super();
    this.#hash = startSha256(expectedBytes);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#size += chunk.length;
    if (this.#size > this.maxBytes) return done(new UploadTooLargeError(this.maxBytes));
    const hashed = this.#hash.update(chunk);
    if (this.#headLength < UPLOAD_HEAD_BYTES) {
      const part = Buffer.from(chunk.subarray(0, UPLOAD_HEAD_BYTES - this.#headLength));
      this.#headParts.push(part);
      this.#headLength += part.length;
      if (this.#headLength === UPLOAD_HEAD_BYTES) {
        const failure = this.#runHeadCheck();
        if (failure !== undefined) return done(failure);
      }
    }
    // The chunk is copied for the hash already, unless the worker is behind: then the next chunk
    // waits until there is room.
    if (hashed === undefined) return done(null, chunk);
    hashed.then(() => done(null, chunk), done);
  }

  override _flush(done: TransformCallback): void {
    // Ending the stream is what lets storage publish the object, so every refusal happens here.
    if (this.truncated()) return done(new UploadTooLargeError(this.maxBytes));
    done(this.#runHeadCheck() ?? null);
  }

  /** Once every byte has passed. */
  sha256(): Promise<string> {
    return this.#hash.digest();
  }

  /** The bytes will not be stored: the worker forgets them. */
  cancel(): void {
    this.#hash.cancel();
  }

  head(): Buffer {
    return Buffer.concat(this.#headParts, this.#headLength);
  }

  #runHeadCheck(): Error | undefined {
    if (this.#headChecked || this.checkHead === undefined) return undefined;
    this.#headChecked = true;
    try {
      this.checkHead(this.head());
      return undefined;
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  }
}

