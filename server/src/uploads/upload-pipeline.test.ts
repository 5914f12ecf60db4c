import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { FsStorage } from '../storage/fs-storage.js';
import { newUploadKey } from '../storage/object-key.js';
import { UPLOAD_HEAD_BYTES, storeUpload, UploadInterruptedError, UploadTooLargeError } from './upload-pipeline.js';

const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

let dir: string;
let root: string;
let storage: FsStorage;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'upload-pipeline-'));
  root = path.join(dir, 'objects');
  storage = new FsStorage(root);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function sha256sum(file: string): Promise<string> {
  const { stdout } = await promisify(execFile)('sha256sum', [file]);
  return stdout.split(' ')[0]!;
}

/** Every regular file left under the store, temp files included. */
async function leftovers(): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Yields `total` bytes in 64 KiB chunks, the size @fastify/multipart hands over. */
function chunked(bytes: Buffer): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < bytes.length; i += 65_536) yield bytes.subarray(i, i + 65_536);
    })(),
  );
}

describe('storeUpload', () => {
  it('stores a file with the size and SHA-256 that sha256sum reports, and keeps its first 4 KiB', async () => {
    const input = path.join(dir, 'input.bin');
    const bytes = randomBytes(5 * 1024 * 1024 + 123);
    await writeFile(input, bytes);
    const key = newUploadKey();
    const stored = await storeUpload({ source: createReadStream(input), storage, key, maxBytes: 10 * 1024 * 1024 });
    expect(stored.key).toBe(key);
    expect(stored.size).toBe(bytes.length);
    expect(stored.sha256).toBe(await sha256sum(input));
    expect(stored.head).toEqual(bytes.subarray(0, UPLOAD_HEAD_BYTES));
    expect(await sha256sum(path.join(root, ...key.split('/')))).toBe(stored.sha256);
  });

  it('stores a 0-byte file', async () => {
    const key = newUploadKey();
    const stored = await storeUpload({ source: Readable.from([]), storage, key, maxBytes: 10 });
    expect(stored).toEqual({ key, size: 0, sha256: EMPTY_SHA256, head: Buffer.alloc(0) });
    expect(await storage.stat(key)).toEqual({ size: 0 });
  });

  it('keeps the whole file as head when it is shorter than 4 KiB, across small chunks', async () => {
    const bytes = randomBytes(1000);
    const source = Readable.from([bytes.subarray(0, 10), bytes.subarray(10, 700), bytes.subarray(700)]);
    const stored = await storeUpload({ source, storage, key: newUploadKey(), maxBytes: 1000 });
    expect(stored.head).toEqual(bytes);
    expect(stored.sha256).toBe(sha256(bytes));
  });

  it('accepts a file of exactly maxBytes', async () => {
    const bytes = randomBytes(200_000);
    const stored = await storeUpload({ source: chunked(bytes), storage, key: newUploadKey(), maxBytes: 200_000 });
    expect(stored.size).toBe(200_000);
  });

  it('refuses one byte over maxBytes with a 413 and leaves no bytes anywhere', async () => {
    const source = chunked(randomBytes(200_001));
    const key = newUploadKey();
    const failure = storeUpload({ source, storage, key, maxBytes: 200_000 });
    await expect(failure).rejects.toBeInstanceOf(UploadTooLargeError);
    await expect(failure).rejects.toMatchObject({ status: 413 });
    expect(await storage.stat(key)).toBeNull();
    expect(await leftovers()).toEqual([]);
    expect(source.destroyed).toBe(true);
  });

  it('stops reading an endless source once past the limit', async () => {
    let produced = 0;
    const source = new Readable({
      read() {
        produced += 65_536;
        this.push(Buffer.alloc(65_536, 1));
      },
    });
    await expect(storeUpload({ source, storage, key: newUploadKey(), maxBytes: 1024 * 1024 })).rejects.toBeInstanceOf(
      UploadTooLargeError,
    );
    expect(produced).toBeLessThan(4 * 1024 * 1024);
    expect(await leftovers()).toEqual([]);
  });

  it('refuses a file the multipart parser truncated at its own limit (file.truncated)', async () => {
    const source: PassThrough & { truncated?: boolean } = new PassThrough();
    const key = newUploadKey();
    const failure = storeUpload({ source, storage, key, maxBytes: 1024 * 1024 });
    source.write(randomBytes(100_000));
    source.truncated = true;
    source.end();
    await expect(failure).rejects.toBeInstanceOf(UploadTooLargeError);
    expect(await leftovers()).toEqual([]);
  });

  it('leaves nothing when the source is destroyed mid-file, as @fastify/multipart does when the client disconnects', async () => {
    const source = new PassThrough();
    const key = newUploadKey();
    const failure = storeUpload({ source, storage, key, maxBytes: 10 * 1024 * 1024 });
    source.write(randomBytes(300_000));
    await new Promise((r) => setTimeout(r, 50));
    source.destroy();
    await expect(failure).rejects.toBeInstanceOf(UploadInterruptedError);
    await expect(failure).rejects.toMatchObject({ status: 400 });
    expect(await storage.stat(key)).toBeNull();
    expect(await leftovers()).toEqual([]);
  });

  it('leaves nothing when the source fails mid-file (a malformed multipart body)', async () => {
    const source = new PassThrough();
    const failure = storeUpload({ source, storage, key: newUploadKey(), maxBytes: 10 * 1024 * 1024 });
    source.write(randomBytes(300_000));
    await new Promise((r) => setTimeout(r, 50));
    source.destroy(new Error('Part terminated early'));
    const err: unknown = await failure.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UploadInterruptedError);
    expect((err as Error).cause).toMatchObject({ message: 'Part terminated early' });
    expect(await leftovers()).toEqual([]);
  });

  it('leaves nothing and rejects with the reason when the caller aborts', async () => {
    const source = new PassThrough();
    const controller = new AbortController();
    const failure = storeUpload({ source, storage, key: newUploadKey(), maxBytes: 1e9, signal: controller.signal });
    source.write(randomBytes(300_000));
    await new Promise((r) => setTimeout(r, 50));
    controller.abort(new Error('request closed'));
    await expect(failure).rejects.toThrow('request closed');
    expect(await leftovers()).toEqual([]);
    expect(source.destroyed).toBe(true);
  });

  it('lets checkHead refuse the content before anything becomes visible', async () => {
    const bytes = randomBytes(1024 * 1024);
    const seen: Buffer[] = [];
    const failure = storeUpload({
      source: chunked(bytes),
      storage,
      key: newUploadKey(),
      maxBytes: 1e9,
      checkHead: (head) => {
        seen.push(head);
        throw new AppError(415, 'The content does not match the extension');
      },
    });
    await expect(failure).rejects.toMatchObject({ status: 415, message: 'The content does not match the extension' });
    expect(seen).toEqual([bytes.subarray(0, UPLOAD_HEAD_BYTES)]);
    expect(await leftovers()).toEqual([]);
  });

  it('runs checkHead once, at the end, for a file shorter than the head', async () => {
    const seen: Buffer[] = [];
    const stored = await storeUpload({
      source: Readable.from([Buffer.from('DICM'), Buffer.from('!')]),
      storage,
      key: newUploadKey(),
      maxBytes: 100,
      checkHead: (head) => seen.push(head),
    });
    expect(seen).toEqual([Buffer.from('DICM!')]);
    expect(stored.size).toBe(5);
  });

  it('passes the storage error on when the key is already used, and keeps the first object', async () => {
    const key = newUploadKey();
    await storeUpload({ source: Readable.from([Buffer.from('first')]), storage, key, maxBytes: 100 });
    await expect(
      storeUpload({ source: Readable.from([Buffer.from('second')]), storage, key, maxBytes: 100 }),
    ).rejects.toMatchObject({ name: 'ObjectExistsError' });
    expect((await buffer(await storage.get(key))).toString()).toBe('first');
  });

  it('stores 20 concurrent uploads, each with its own correct checksum', async () => {
    const inputs = Array.from({ length: 20 }, (_, i) => randomBytes(300_000 + i * 4099));
    const results = await Promise.all(
      inputs.map((bytes) => storeUpload({ source: chunked(bytes), storage, key: newUploadKey(), maxBytes: 1e9 })),
    );
    for (const [i, bytes] of inputs.entries()) {
      const stored = results[i]!;
      expect(stored.size).toBe(bytes.length);
      expect(stored.sha256).toBe(sha256(bytes));
      expect(await sha256sum(path.join(root, ...stored.key.split('/')))).toBe(stored.sha256);
    }
  });

  it('keeps memory flat while streaming 512 MiB', async () => {
    const chunk = randomBytes(65_536);
    const total = 512 * 1024 * 1024;
    let sent = 0;
    const source = new Readable({
      read() {
        this.push(sent >= total ? null : chunk);
        sent += chunk.length;
      },
    });
    const start = process.memoryUsage().rss;
    let peak = start;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    try {
      const stored = await storeUpload({ source, storage, key: newUploadKey(), maxBytes: total });
      expect(stored.size).toBe(total);
    } finally {
      clearInterval(sampler);
    }
    expect(peak - start).toBeLessThan(64 * 1024 * 1024);
  });
});
