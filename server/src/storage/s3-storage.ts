// Storage in an S3 bucket (DESIGN §3), for several API nodes and workers sharing one store. A put
// streams into a multipart upload (lib-storage), which S3 makes visible only when it is completed
// and forgets when aborted; reads are (ranged) GETs, so a download or a member of a zip never
// needs a local copy. Only tools that must open a file (the archive extractor) get one, in a
// capped local work area.
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, rm } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  DeleteObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { LocalWorkArea } from './local-work-area.js';
import { assertValidKey, assertValidPrefix, isValidKey } from './object-key.js';
import { describeS3Failure, describeTarget, s3ErrorName, s3Status, type S3Target } from './s3-failure.js';
import { isWellFormed, readTarget, type ByteRange, type ListedObject, type LocalCopy, type ObjectInfo, type PutOptions, type Storage, type SweepOptions } from './storage.js';
import { InvalidRangeError, ObjectExistsError, ObjectNotFoundError, StorageUnavailableError } from './storage-errors.js';

/** S3 allows at most this many parts in one upload. */
const MAX_PARTS = 10_000;
const MIN_PART_BYTES = 8 * 1024 * 1024;
/**
 * Parts sent at once per upload. Each holds one part in memory, so an upload costs about
 * (queue + 1) × part size: 24 MiB at the default part size.
 */
const PARTS_IN_FLIGHT = 2;

export interface S3StorageOptions {
  client: S3Client;
  target: S3Target;
  workArea: LocalWorkArea;
  /** The largest object a put must accept (MAX_UPLOAD_BYTES): parts grow so it fits in 10,000. */
  maxObjectBytes: number;
  /**
   * A sweep given a grace period waits at least this long after an upload's last part. A part is
   * sent only once 8 MiB have arrived, so a slow client's upload on another node can go quiet in
   * the bucket for longer than UPLOAD_LEASE_SECONDS while it is alive. Default 0.
   */
  minSweepAgeMs?: number;
}

export class S3Storage implements Storage {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #target: S3Target;
  readonly #work: LocalWorkArea;
  readonly #partSize: number;
  readonly #minSweepAgeMs: number;
  // Keys this process is writing: a second put to one of them is refused at once (see put).
  readonly #writing = new Set<string>();

  constructor(opts: S3StorageOptions) {
    this.#client = opts.client;
    this.#target = opts.target;
    this.#bucket = opts.target.bucket;
    this.#work = opts.workArea;
    this.#partSize = Math.max(MIN_PART_BYTES, Math.ceil(opts.maxObjectBytes / MAX_PARTS));
    this.#minSweepAgeMs = opts.minSweepAgeMs ?? 0;
  }

  get workArea(): LocalWorkArea {
    return this.#work;
  }

  /**
   * Never overwriting takes two guards. Every put asks the service to refuse an existing key
   * (If-None-Match: *, on the single PUT or on the multipart completion), which AWS S3 and
   * current MinIO and Ceph honour atomically. Services that ignore that header (s3rver, older
   * ones) still get a check for the key before the first byte is sent, and within this process
   * a key being written is reserved, so two puts of one process never both win; only two
   * processes putting the same key at the same moment would then race, and keys are fresh
   * UUIDs (an entry's key belongs to the one job run holding the job's lease).
   */
  async put(key: string, body: Readable, opts: PutOptions = {}): Promise<ObjectInfo> {
    body.on('error', () => undefined);
    let reserved = false;
    try {
      assertValidKey(key);
      opts.signal?.throwIfAborted();
      if (this.#writing.has(key)) throw new ObjectExistsError(key);
      this.#writing.add(key);
      reserved = true;
      if ((await this.stat(key)) !== null) throw new ObjectExistsError(key);
      return { size: await this.#upload(key, body, opts.signal) };
    } catch (err) {
      body.destroy();
      if (opts.signal?.aborted) throw opts.signal.reason;
      throw err;
    } finally {
      if (reserved) this.#writing.delete(key);
    }
  }

  /** One upload's request either way: the bytes go through `put`'s upload and its rules. */
  putBytes(key: string, bytes: Uint8Array, opts: PutOptions = {}): Promise<ObjectInfo> {
    return this.put(key, Readable.from([bytes]), opts);
  }

  async putFile(key: string, localPath: string, opts: PutOptions = {}): Promise<ObjectInfo> {
    assertValidKey(key);
    opts.signal?.throwIfAborted();
    // A link from an extracted archive must never smuggle another file into the store.
    const info = await lstat(localPath);
    if (!info.isFile()) throw new Error(`Not a regular file: ${localPath}`);
    const stored = await this.put(key, createReadStream(localPath), opts);
    await rm(localPath, { force: true });
    return stored;
  }

  async #upload(key: string, body: Readable, signal: AbortSignal | undefined): Promise<number> {
    let size = 0;
    let sourceError: Error | undefined;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(null, chunk);
      },
    });
    // The source's own failure (the client went away, a check on the first bytes refused the
    // file) is what the caller must see, not the multipart upload's reaction to it.
    void pipeline(body, counted).catch((err: unknown) => {
      sourceError ??= err instanceof Error ? err : new Error(String(err));
    });
    const onAbort = () => counted.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal?.addEventListener('abort', onAbort, { once: true });
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.#bucket, Key: key, Body: counted, IfNoneMatch: '*' },
      partSize: this.#partSize,
      queueSize: PARTS_IN_FLIGHT,
      // A failed upload aborts its multipart upload, so no part lingers; the sweep catches the rest.
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      if (sourceError !== undefined) throw sourceError;
      if (isConditionFailed(err)) throw new ObjectExistsError(key);
      throw this.#failure(err, `storing ${key}`);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (sourceError !== undefined) throw sourceError;
    return size;
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    assertValidKey(key);
    if (range !== undefined && !isWellFormed(range)) throw await this.#rangeError(key);
    let answer;
    try {
      answer = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
    } catch (err) {
      if (isNotFound(err)) throw new ObjectNotFoundError(key);
      if (s3Status(err) === 416) throw await this.#rangeError(key);
      throw this.#failure(err, `reading ${key}`);
    }
    const stream = answer.Body as Readable;
    if (range === undefined) return stream;
    const served = parseContentRange(answer.ContentRange);
    // S3 shortens a range that runs past the end instead of refusing it; the contract refuses.
    if (served === null || served.start !== range.start || range.end >= served.total) {
      stream.destroy();
      throw new InvalidRangeError(key, served?.total ?? answer.ContentLength ?? 0);
    }
    // Some services (s3rver for `bytes=0-0`) send more than asked: only the range leaves here.
    return served.end > range.end ? takeBytes(stream, range.end - range.start + 1) : stream;
  }

  async getBytes(key: string, range: ByteRange, into?: Uint8Array): Promise<Buffer> {
    // One request either way: what S3 saves is the stream's hand-over, not the trip.
    const stream = await this.get(key, range);
    if (into === undefined) {
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    }
    const target = readTarget(into, range);
    let at = 0;
    for await (const chunk of stream) {
      target.set(chunk as Buffer, at);
      at += (chunk as Buffer).length;
    }
    return target;
  }

  /**
   * Downloads the object into the local work area (waiting while it is full). `release` removes
   * the copy; a process that dies first leaves it for the next sweep.
   */
  async openLocal(key: string): Promise<LocalCopy> {
    const info = await this.stat(key);
    if (info === null) throw new ObjectNotFoundError(key);
    const file = await this.#work.reserve(info.size);
    try {
      const source = await this.get(key);
      await pipeline(source, createWriteStream(file.path, { flags: 'wx', mode: 0o600 }));
      return { path: file.path, release: () => file.release() };
    } catch (err) {
      await file.release();
      throw err;
    }
  }

  /** A completed multipart upload is already durable in S3: there is nothing to flush. */
  flush(): Promise<void> {
    return Promise.resolve();
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    assertValidKey(key);
    try {
      const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }));
      return { size: head.ContentLength ?? 0 };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw this.#failure(err, `looking up ${key}`);
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    try {
      // S3 answers a delete of a missing key with success, as the contract wants.
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
    } catch (err) {
      if (isNotFound(err)) return;
      throw this.#failure(err, `deleting ${key}`);
    }
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    assertValidPrefix(prefix);
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.#client.send(
          new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }),
        );
      } catch (err) {
        throw this.#failure(err, `listing ${prefix || 'the bucket'}`);
      }
      for (const object of page.Contents ?? []) {
        // Whatever else shares the bucket is not ours to report.
        if (object.Key !== undefined && isValidKey(object.Key)) yield { key: object.Key, size: object.Size ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  /**
   * Aborts multipart uploads nobody will complete, and removes local copies that processes now
   * gone left in the work area. An upload counts as untouched since its last part arrived (its
   * start where the service cannot list parts), so a long upload that is still sending is kept;
   * this process's own puts in progress are never touched. A service that cannot list multipart
   * uploads (s3rver) answers 0: its leftovers are invisible to any client.
   */
  async sweepIncomplete(opts: SweepOptions = {}): Promise<number> {
    await this.#work.sweep();
    const cutoff = opts.olderThanMs === undefined ? Infinity : Date.now() - Math.max(opts.olderThanMs, this.#minSweepAgeMs);
    let removed = 0;
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    for (;;) {
      let page;
      try {
        page = await this.#client.send(
          new ListMultipartUploadsCommand({ Bucket: this.#bucket, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }),
        );
      } catch (err) {
        if (isNotImplemented(err)) return removed;
        throw this.#failure(err, 'listing unfinished uploads');
      }
      for (const upload of page.Uploads ?? []) {
        const { Key: key, UploadId: uploadId } = upload;
        if (key === undefined || uploadId === undefined || !isValidKey(key) || this.#writing.has(key)) continue;
        if (cutoff !== Infinity && (await this.#lastTouched(key, uploadId, upload.Initiated)) > cutoff) continue;
        try {
          await this.#client.send(new AbortMultipartUploadCommand({ Bucket: this.#bucket, Key: key, UploadId: uploadId }));
          removed += 1;
        } catch (err) {
          // Completed or aborted meanwhile (by its own put, or another node's sweep).
          if (s3ErrorName(err) !== 'NoSuchUpload' && s3Status(err) !== 404) throw this.#failure(err, 'removing an unfinished upload');
        }
      }
      if (!page.IsTruncated) return removed;
      keyMarker = page.NextKeyMarker;
      uploadIdMarker = page.NextUploadIdMarker;
    }
  }

  /** The bucket answers with these credentials; rejects with StorageUnavailableError saying why not. */
  async checkAccess(): Promise<void> {
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.#bucket }));
    } catch (err) {
      throw new StorageUnavailableError(`Cannot use the ${describeTarget(this.#target)}: ${describeS3Failure(err, this.#target)}.`, {
        cause: err,
      });
    }
  }

  async #lastTouched(key: string, uploadId: string, initiated: Date | undefined): Promise<number> {
    let latest = initiated?.getTime() ?? 0;
    let marker: string | undefined;
    for (;;) {
      let page;
      try {
        page = await this.#client.send(
          new ListPartsCommand({ Bucket: this.#bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker }),
        );
      } catch (err) {
        if (isNotImplemented(err)) return latest;
        // Gone meanwhile: then it is nothing to sweep either.
        if (s3ErrorName(err) === 'NoSuchUpload' || s3Status(err) === 404) return Infinity;
        throw this.#failure(err, 'listing the parts of an unfinished upload');
      }
      for (const part of page.Parts ?? []) latest = Math.max(latest, part.LastModified?.getTime() ?? 0);
      if (!page.IsTruncated) return latest;
      marker = page.NextPartNumberMarker;
    }
  }

  /** The SDK's error, with a message in words and the cause kept for the log (it holds no secret). */
  #failure(err: unknown, doing: string): Error {
    if (err instanceof StorageUnavailableError) return err;
    return new StorageUnavailableError(`S3 failed while ${doing} in the ${describeTarget(this.#target)}: ${describeS3Failure(err, this.#target)}`, {
      cause: err,
    });
  }

  async #rangeError(key: string): Promise<Error> {
    const info = await this.stat(key);
    return info === null ? new ObjectNotFoundError(key) : new InvalidRangeError(key, info.size);
  }
}

/** `bytes 0-9/100` → { start: 0, end: 9, total: 100 }. */
function parseContentRange(contentRange: string | undefined): { start: number; end: number; total: number } | null {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(contentRange ?? '');
  return match ? { start: Number(match[1]), end: Number(match[2]), total: Number(match[3]) } : null;
}

/** The first `count` bytes of `source`, which is closed once they have passed. */
function takeBytes(source: Readable, count: number): Readable {
  let left = count;
  const limited = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (left <= 0) return done();
      const part = chunk.length > left ? chunk.subarray(0, left) : chunk;
      left -= part.length;
      this.push(part);
      if (left === 0) {
        this.push(null);
        source.unpipe(limited);
        source.destroy();
      }
      done();
    },
  });
  limited.on('close', () => source.destroy());
  source.on('error', (err) => limited.destroy(err));
  return source.pipe(limited);
}

function isNotFound(err: unknown): boolean {
  const name = s3ErrorName(err);
  return name === 'NoSuchKey' || name === 'NotFound' || (s3Status(err) === 404 && name !== 'NoSuchBucket');
}

// 412: the key exists. 409: another conditional write to the key is finishing at the same time.
function isConditionFailed(err: unknown): boolean {
  const name = s3ErrorName(err);
  return name === 'PreconditionFailed' || name === 'ConditionalRequestConflict' || s3Status(err) === 412;
}

function isNotImplemented(err: unknown): boolean {
  return s3ErrorName(err) === 'NotImplemented' || s3Status(err) === 501;
}
