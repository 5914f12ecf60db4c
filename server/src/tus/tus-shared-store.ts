// A tus DataStore whose state every API node shares (TUS_STORE=shared, docs/architecture.md "tus
// on several nodes"): an upload's offset is a database row (tus-offsets.repository.ts), its bytes
// are chunk objects in the Storage backend, one per PATCH, keyed by the offset the PATCH started
// at and an attempt (tus/<id>/<offset, 16 digits>.<random>). `put` makes a chunk visible only once
// all its bytes are durable, and only then is it counted, by compare-and-set on the offset: a node
// that dies mid-PATCH leaves no chunk and an unmoved offset, so the client resends at most that
// one chunk, on any node. An object nobody counted is never read, and goes with its upload.
// At the last byte the chunks are copied in order into one local work file for the completion path
// (tus-uploads.service.ts: content check, SHA-256, durable before visible, one job), then removed.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DataStore, ERRORS, Upload } from '@tus/utils';
import type { TusUploadRow } from '../db/schema.js';
import type { Storage } from '../storage/storage.js';
import type { TusOffsetsRepository } from './tus-offsets.repository.js';

const PREFIX = 'tus/';
const OFFSET_DIGITS = 16;
const ID_PATTERN = /^[0-9a-f]{32}$/;
const SCRATCH_SUFFIX = '.assembling';
const WRITE_BUFFER_BYTES = 1024 * 1024;

export interface SharedTusStoreOptions {
  storage: Storage;
  offsets: TusOffsetsRepository;
  /** tus's own expiry check (Upload-Expires), as for the file store: UPLOAD_EXPIRY_SECONDS. */
  expiryMs: number;
  /** A node-private folder for the work file of an upload being finished (DATA_DIR/tus). */
  scratchDirectory: string;
}

/** One chunk object of an upload: bytes [start, start + size). */
interface Chunk {
  key: string;
  start: number;
  size: number;
}

/** The whole of a finished upload as a local file, and the SHA-256 of its bytes if asked for. */
export interface AssembledUpload {
  path: string;
  sha256: string | undefined;
  release(): Promise<void>;
}

export class SharedTusStore extends DataStore {
  readonly #storage: Storage;
  readonly #offsets: TusOffsetsRepository;
  readonly #expiryMs: number;
  readonly #scratch: string;

  constructor(options: SharedTusStoreOptions) {
    super();
    this.#storage = options.storage;
    this.#offsets = options.offsets;
    this.#expiryMs = options.expiryMs;
    this.#scratch = options.scratchDirectory;
    // Upload-Concat and deferred lengths are refused before tus sees them (tus-uploads.service.ts).
    this.extensions = ['creation', 'creation-with-upload', 'termination', 'expiration'];
  }

  /** The record was made when the creation was authorised; here it gets its offset, 0. */
  override async create(upload: Upload): Promise<Upload> {
    await this.#offsets.start(upload.id);
    return upload;
  }

  override async getUpload(id: string): Promise<Upload> {
    const found = await this.#offsets.find(id);
    // tus answers its own error objects (status and body), not Error instances.
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    if (!found) throw ERRORS.FILE_NOT_FOUND;
    const { row, received } = found;
    return new Upload({ id, size: Number(row.size), offset: received, metadata: metadataOf(row), creation_date: row.created_at });
  }

  /**
   * Stores one PATCH's bytes as one chunk object. A body that fails (the client went away, or sent
   * more than announced) keeps what arrived, as the file store does: the chunk is stored and
   * counted, then the failure is answered. Only the death of this process loses the chunk.
   */
  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    const key = chunkKey(id, offset);
    // Listening before anything is awaited, so a body failing meanwhile still ends the chunk.
    const body = new PassThrough({ highWaterMark: WRITE_BUFFER_BYTES });
    let failure: unknown;
    readable.once('error', (err) => {
      failure = err;
      readable.unpipe(body);
      body.end();
    });
    readable.pipe(body);
    let size: number;
    try {
      if (offset === 0) await this.#offsets.start(id);
      ({ size } = await this.#storage.put(key, body));
    } catch {
      body.destroy();
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw ERRORS.FILE_WRITE_ERROR;
    }
    if (size === 0) {
      await this.#storage.delete(key);
    } else if (!(await this.#offsets.advance(id, offset, offset + size, key))) {
      // The upload was removed meanwhile, or another request moved it: this chunk must not count.
      await this.#storage.delete(key);
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw ERRORS.INVALID_OFFSET;
    }
    // The body's own failure, as tus handed it (an abort, or its size limit's error object).
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    if (failure !== undefined) throw failure;
    return offset + size;
  }

  /** tus termination; the record goes with the service's removal that follows. */
  override async remove(id: string): Promise<void> {
    await this.removeBytes(id);
  }

  /** Expired uploads are removed by the service's sweep, which also removes their records. */
  override deleteExpired(): Promise<number> {
    return Promise.resolve(0);
  }

  override getExpiration(): number {
    return this.#expiryMs;
  }

  /** Every chunk object of an upload, counted or not (a writer that died before counting its chunk left one). */
  async removeBytes(id: string): Promise<void> {
    if (!ID_PATTERN.test(id)) return;
    for await (const object of this.#storage.list(`${PREFIX}${id}/`)) await this.#storage.delete(object.key);
  }

  /** The first `bytes` bytes of an upload (fewer if fewer are stored), for the content check. */
  async readHead(id: string, bytes: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    let collected = 0;
    for (const chunk of await this.#chain(id)) {
      if (collected >= bytes) break;
      const want = Math.min(chunk.size, bytes - collected);
      for await (const piece of await this.#storage.get(chunk.key, { start: 0, end: want - 1 })) {
        parts.push(piece as Buffer);
        collected += (piece as Buffer).length;
      }
    }
    return Buffer.concat(parts).subarray(0, bytes);
  }

  /**
   * The chunks of a finished upload copied in order into a local work file, hashed on the way
   * unless the caller already has the SHA-256 (this node received every byte).
   * `release` removes the work file if the completion path left it; the chunks go with the upload.
   */
  async assemble(id: string, size: number, opts: { hash: boolean }): Promise<AssembledUpload> {
    const chunks = await this.#chain(id);
    const stored = chunks.reduce((sum, c) => sum + c.size, 0);
    if (stored !== size) throw new Error(`upload ${id} has ${stored} of its ${size} bytes in storage`);
    await mkdir(this.#scratch, { recursive: true, mode: 0o700 });
    const file = path.join(this.#scratch, `${id}${SCRATCH_SUFFIX}`);
    const hash = opts.hash ? createHash('sha256') : undefined;
    const out = createWriteStream(file, { mode: 0o600, highWaterMark: WRITE_BUFFER_BYTES });
    try {
      for (const chunk of chunks) {
        const piece = await this.#storage.get(chunk.key);
        if (hash) {
          const tap = new Transform({
            transform(bytes: Buffer, _encoding, done) {
              hash.update(bytes);
              done(null, bytes);
            },
          });
          await pipeline(piece, tap, out, { end: false });
        } else {
          await pipeline(piece, out, { end: false });
        }
      }
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    } catch (err) {
      out.destroy();
      await rm(file, { force: true });
      throw err;
    }
    return {
      path: file,
      sha256: hash?.digest('hex'),
      release: () => rm(file, { force: true }),
    };
  }

  /**
   * Chunk objects of uploads no record names (a node died between storing a chunk and finding its
   * upload removed), and work files this node left when it died while finishing. Records are made
   * before their chunks and removed after them, so a chunk without one is never of a live upload.
   */
  async sweepOrphans(): Promise<number> {
    const byUpload = new Map<string, string[]>();
    for await (const object of this.#storage.list(PREFIX)) {
      const id = object.key.slice(PREFIX.length).split('/')[0] ?? '';
      byUpload.set(id, [...(byUpload.get(id) ?? []), object.key]);
    }
    const known = await this.#offsets.existing([...byUpload.keys()].filter((id) => ID_PATTERN.test(id)));
    let removed = 0;
    for (const [id, keys] of byUpload) {
      if (known.has(id)) continue;
      for (const key of keys) await this.#storage.delete(key);
      removed += 1;
    }
    const scratch = (await readdir(this.#scratch).catch(() => [] as string[])).filter((n) => n.endsWith(SCRATCH_SUFFIX));
    const finishing = await this.#offsets.existing(scratch.map((n) => n.slice(0, -SCRATCH_SUFFIX.length)));
    for (const name of scratch) {
      if (finishing.has(name.slice(0, -SCRATCH_SUFFIX.length))) continue;
      await rm(path.join(this.#scratch, name), { force: true });
      removed += 1;
    }
    return removed;
  }

  /** The counted chunks of an upload in order, each starting where the one before ended. */
  async #chain(id: string): Promise<Chunk[]> {
    const chunks = await this.#offsets.chunks(id);
    let at = 0;
    for (const chunk of chunks) {
      if (chunk.start !== at) throw new Error(`upload ${id} misses the bytes from ${at} to ${chunk.start}`);
      at += chunk.size;
    }
    return chunks;
  }
}

/** A finishing request's work file (sweepOrphans's to remove), not an upload of the file store. */
export function isWorkFile(name: string): boolean {
  return name.endsWith(SCRATCH_SUFFIX);
}

function chunkKey(id: string, offset: number): string {
  // eslint-disable-next-line @typescript-eslint/only-throw-error
  if (!ID_PATTERN.test(id)) throw ERRORS.FILE_NOT_FOUND;
  return `${PREFIX}${id}/${String(offset).padStart(OFFSET_DIGITS, '0')}.${randomBytes(4).toString('hex')}`;
}

/** The metadata an upload was created with, as far as its record holds it (the keys the portal keeps). */
function metadataOf(row: TusUploadRow): Record<string, string | null> {
  const metadata: Record<string, string | null> = { filename: row.file_name, studypetitionid: String(row.project_id) };
  if (row.delivery_id !== null) metadata.delivery = String(row.delivery_id);
  if (row.relative_path !== null) metadata.relativePath = row.relative_path;
  return metadata;
}
