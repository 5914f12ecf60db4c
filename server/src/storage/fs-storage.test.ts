// What only the filesystem backend can show: where files are, their modes, links and descriptors.
// The Storage contract itself runs for every backend in storage.test.ts.
import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStorage } from './create-storage.js';
import { FsStorage } from './fs-storage.js';
import { newEntryKey, newUploadKey } from './object-key.js';
import { InvalidRangeError, StorageUnavailableError } from './storage-errors.js';

let dir: string;
let root: string;
let storage: FsStorage;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'fs-storage-'));
  root = path.join(dir, 'objects');
  storage = new FsStorage(root);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const tempNames = async (): Promise<string[]> => readdir(path.join(root, '.tmp')).catch(() => []);

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('condition never became true');
}

describe('FsStorage files', () => {
  it('keeps an object as a file at <root>/<key>, readable by the service account only', async () => {
    const bytes = randomBytes(3000);
    const key = newUploadKey();
    await storage.put(key, Readable.from([bytes]));
    const file = path.join(root, ...key.split('/'));
    expect(await readFile(file)).toEqual(bytes);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('moves a local file in without copying it', async () => {
    const source = path.join(dir, 'extracted.dcm');
    await writeFile(source, randomBytes(123_456));
    const inode = (await stat(source)).ino;
    const key = newEntryKey(3);
    await storage.putFile(key, source);
    expect((await stat(path.join(root, ...key.split('/')))).ino).toBe(inode);
  });

  it('copies across filesystems and removes the source', async () => {
    const shm = await mkdtemp('/dev/shm/fs-storage-');
    try {
      expect((await stat(shm)).dev).not.toBe((await stat(dir)).dev);
      const source = path.join(shm, 'entry.bin');
      const bytes = randomBytes(200_000);
      await writeFile(source, bytes);
      const key = newEntryKey(4);
      await expect(storage.putFile(key, source)).resolves.toEqual({ size: bytes.length });
      expect(await buffer(await storage.get(key))).toEqual(bytes);
      await expect(lstat(source)).rejects.toThrow(/ENOENT/);
      expect(await tempNames()).toEqual([]);
    } finally {
      await rm(shm, { recursive: true, force: true });
    }
  });

  it('keeps every stored object private, however the source was created', async () => {
    for (const [mode, durable] of [[0o644, false], [0o4600, false], [0o600, false], [0o666, true]] as const) {
      const source = path.join(dir, `mode-${mode.toString(8)}-${durable}.bin`);
      await writeFile(source, 'entry');
      await chmod(source, mode);
      const key = newEntryKey(7);
      await storage.putFile(key, source, { durable });
      expect((await stat(path.join(root, ...key.split('/')))).mode & 0o7777).toBe(0o600);
    }
  });

  it('answers the stored file itself to openLocal, without a copy', async () => {
    const key = newUploadKey();
    await storage.put(key, Readable.from([Buffer.from('local')]));
    const copy = await storage.openLocal(key);
    expect(copy.path).toBe(path.join(root, ...key.split('/')));
    await copy.release();
  });

  it('says in words when the folder cannot be made', async () => {
    await writeFile(path.join(dir, 'a-file'), 'not a folder');
    const readOnly = new FsStorage(path.join(dir, 'a-file'));
    const failure = readOnly.checkAccess();
    await expect(failure).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(failure).rejects.toThrow(/cannot read and write it\. Check DATA_DIR/);
  });
});

describe('FsStorage file descriptors', () => {
  const openFds = async () => (await readdir('/proc/self/fd')).length;

  it('releases every descriptor after puts, failed puts and reads, consumed or abandoned', async () => {
    const key = newUploadKey();
    await storage.put(key, Readable.from([randomBytes(1000)]));
    const before = await openFds();
    for (let i = 0; i < 20; i += 1) {
      await storage.put(newUploadKey(), Readable.from([randomBytes(1000)]));
      const failing = new PassThrough();
      const put = storage.put(newUploadKey(), failing);
      failing.write(randomBytes(1000));
      failing.destroy(new Error('gone'));
      await expect(put).rejects.toThrow('gone');
      await buffer(await storage.get(key));
      (await storage.get(key, { start: 1, end: 2 })).destroy();
      await expect(storage.get(key, { start: 5000, end: 5001 })).rejects.toBeInstanceOf(InvalidRangeError);
    }
    await until(async () => (await openFds()) === before);
  });
});

describe('FsStorage.sweepIncomplete', () => {
  it('removes the temp file of a put that never finished (a crash)', async () => {
    const body = new PassThrough();
    const put = storage.put(newUploadKey(), body).catch((err: unknown) => err);
    body.write(randomBytes(10_000));
    await until(async () => (await tempNames()).length === 1);
    await expect(storage.sweepIncomplete()).resolves.toBe(1);
    expect(await tempNames()).toEqual([]);
    body.destroy();
    await put;
  });
});

describe('createStorage without S3 settings', () => {
  it('keeps objects under DATA_DIR/objects', async () => {
    const store = await createStorage({ dataDir: dir, s3: undefined, maxUploadBytes: 1024 });
    const key = newUploadKey();
    await store.put(key, Readable.from([Buffer.from('here')]));
    expect((await readFile(path.join(dir, 'objects', ...key.split('/')))).toString()).toBe('here');
  });
});
