import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStorage } from './create-storage.js';
import { FsStorage } from './fs-storage.js';
import { newEntryKey, newUploadKey } from './object-key.js';
import { InvalidKeyError, InvalidRangeError, ObjectExistsError, ObjectNotFoundError } from './storage-errors.js';

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

/** Every regular file under `d`, relative to it, temp files included. */
async function allFiles(d: string): Promise<string[]> {
  const entries = await readdir(d, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.relative(d, path.join(e.parentPath, e.name)));
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('condition never became true');
}

describe('FsStorage put/get/stat/delete', () => {
  it('stores bytes under the key and reads them back whole', async () => {
    const bytes = randomBytes(300_000);
    const key = newUploadKey();
    await expect(storage.put(key, Readable.from([bytes]))).resolves.toEqual({ size: bytes.length });
    expect(await buffer(await storage.get(key))).toEqual(bytes);
    expect(await storage.stat(key)).toEqual({ size: bytes.length });
    expect(await readFile(path.join(root, ...key.split('/')))).toEqual(bytes);
  });

  it('stores and reads a 0-byte object', async () => {
    const key = newUploadKey();
    await expect(storage.put(key, Readable.from([]))).resolves.toEqual({ size: 0 });
    expect(await storage.stat(key)).toEqual({ size: 0 });
    expect((await buffer(await storage.get(key))).length).toBe(0);
  });

  it('reads inclusive byte ranges: first byte, last byte, middle', async () => {
    const bytes = randomBytes(10_000);
    const key = newEntryKey(42);
    await storage.put(key, Readable.from([bytes]));
    expect(await buffer(await storage.get(key, { start: 0, end: 0 }))).toEqual(bytes.subarray(0, 1));
    expect(await buffer(await storage.get(key, { start: 9_999, end: 9_999 }))).toEqual(bytes.subarray(9_999));
    expect(await buffer(await storage.get(key, { start: 100, end: 4_999 }))).toEqual(bytes.subarray(100, 5_000));
  });

  it('refuses a range outside the object before streaming anything', async () => {
    const key = newUploadKey();
    await storage.put(key, Readable.from([Buffer.alloc(100)]));
    await expect(storage.get(key, { start: 100, end: 100 })).rejects.toBeInstanceOf(InvalidRangeError);
    await expect(storage.get(key, { start: 50, end: 100 })).rejects.toBeInstanceOf(InvalidRangeError);
    await expect(storage.get(key, { start: 10, end: 9 })).rejects.toBeInstanceOf(InvalidRangeError);
    await expect(storage.get(key, { start: -1, end: 9 })).rejects.toBeInstanceOf(InvalidRangeError);
    await expect(storage.get(key, { start: 0.5, end: 9 })).rejects.toBeInstanceOf(InvalidRangeError);
    const empty = newUploadKey();
    await storage.put(empty, Readable.from([]));
    await expect(storage.get(empty, { start: 0, end: 0 })).rejects.toBeInstanceOf(InvalidRangeError);
  });

  it('answers not found for missing keys and for prefixes that are only directories', async () => {
    await expect(storage.get(newUploadKey())).rejects.toBeInstanceOf(ObjectNotFoundError);
    expect(await storage.stat(newUploadKey())).toBeNull();
    const key = newEntryKey(7);
    await storage.put(key, Readable.from([Buffer.from('x')]));
    await expect(storage.get('entries/7')).rejects.toBeInstanceOf(ObjectNotFoundError);
    expect(await storage.stat('entries/7')).toBeNull();
    expect(await storage.stat(`${key}/below`)).toBeNull();
  });

  it('deletes an object, and deleting it again succeeds', async () => {
    const key = newUploadKey();
    await storage.put(key, Readable.from([Buffer.from('bye')]));
    await storage.delete(key);
    expect(await storage.stat(key)).toBeNull();
    await expect(storage.get(key)).rejects.toBeInstanceOf(ObjectNotFoundError);
    await expect(storage.delete(key)).resolves.toBeUndefined();
  });

  it('keeps objects readable by the service account only', async () => {
    const key = newUploadKey();
    await storage.put(key, Readable.from([Buffer.from('secret')]));
    expect((await stat(path.join(root, ...key.split('/')))).mode & 0o777).toBe(0o600);
  });
});

describe('FsStorage durability and failure', () => {
  it('shows nothing under the key until the last byte is written', async () => {
    const body = new PassThrough();
    const key = newUploadKey();
    const put = storage.put(key, body);
    body.write(randomBytes(64 * 1024));
    await until(async () => (await tempNames()).length === 1);
    expect(await storage.stat(key)).toBeNull();
    await expect(storage.get(key)).rejects.toBeInstanceOf(ObjectNotFoundError);
    expect(await allFiles(path.join(root, 'uploads'))).toEqual([]);

    body.end(randomBytes(1000));
    await expect(put).resolves.toEqual({ size: 64 * 1024 + 1000 });
    expect(await storage.stat(key)).toEqual({ size: 64 * 1024 + 1000 });
    expect(await tempNames()).toEqual([]);
  });

  it('leaves no object and no temp file when aborted mid-stream', async () => {
    const body = new PassThrough();
    const controller = new AbortController();
    const key = newUploadKey();
    const put = storage.put(key, body, { signal: controller.signal });
    body.write(randomBytes(256 * 1024));
    await until(async () => (await tempNames()).length === 1);
    controller.abort();
    await expect(put).rejects.toThrow(/abort/i);
    expect(await storage.stat(key)).toBeNull();
    expect(await allFiles(root)).toEqual([]);
    expect(body.destroyed).toBe(true);
  });

  it('leaves nothing when the source fails mid-stream (client gone)', async () => {
    const body = new PassThrough();
    const key = newUploadKey();
    const put = storage.put(key, body);
    body.write(randomBytes(256 * 1024));
    await until(async () => (await tempNames()).length === 1);
    body.destroy(new Error('socket hang up'));
    await expect(put).rejects.toThrow('socket hang up');
    expect(await allFiles(root)).toEqual([]);
  });

  it('refuses an already aborted signal without creating anything', async () => {
    const key = newUploadKey();
    await expect(storage.put(key, Readable.from([Buffer.from('x')]), { signal: AbortSignal.abort() })).rejects.toThrow(
      /abort/i,
    );
    expect(await allFiles(root)).toEqual([]);
  });

  it('never rewrites an existing object: a second put to the key fails and the first bytes stay', async () => {
    const key = newUploadKey();
    await storage.put(key, Readable.from([Buffer.from('first')]));
    const second = Readable.from([Buffer.from('second')]);
    await expect(storage.put(key, second)).rejects.toBeInstanceOf(ObjectExistsError);
    expect(second.destroyed).toBe(true);
    expect((await buffer(await storage.get(key))).toString()).toBe('first');
    expect(await tempNames()).toEqual([]);
  });

  it('lets exactly one of two racing puts to the same key win, without mixing their bytes', async () => {
    const key = newUploadKey();
    const a = randomBytes(1024 * 1024);
    const b = randomBytes(1024 * 1024);
    const results = await Promise.allSettled([
      storage.put(key, Readable.from([a])),
      storage.put(key, Readable.from([b])),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toBeInstanceOf(ObjectExistsError);
    const stored = await buffer(await storage.get(key));
    expect(stored.equals(a) || stored.equals(b)).toBe(true);
    expect(await tempNames()).toEqual([]);
  });

  it('stores 20 concurrent puts, each with its own bytes', async () => {
    const inputs = Array.from({ length: 20 }, (_, i) => ({ key: newUploadKey(), bytes: randomBytes(50_000 + i * 997) }));
    await Promise.all(inputs.map(({ key, bytes }) => storage.put(key, Readable.from([bytes]))));
    for (const { key, bytes } of inputs) expect(await buffer(await storage.get(key))).toEqual(bytes);
    expect(await tempNames()).toEqual([]);
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
  it('removes the leftovers of interrupted puts and leaves complete objects alone', async () => {
    const key = newUploadKey();
    await storage.put(key, Readable.from([Buffer.from('kept')]));
    await mkdir(path.join(root, '.tmp'), { recursive: true });
    await writeFile(path.join(root, '.tmp', 'a.part'), randomBytes(1000));
    await writeFile(path.join(root, '.tmp', 'b.part'), '');
    await expect(storage.sweepIncomplete()).resolves.toBe(2);
    expect(await tempNames()).toEqual([]);
    expect(await storage.stat(key)).toEqual({ size: 4 });
    await expect(storage.sweepIncomplete()).resolves.toBe(0);
  });

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

  it('answers 0 on a store never written to', async () => {
    await expect(new FsStorage(path.join(dir, 'nothing-here')).sweepIncomplete()).resolves.toBe(0);
  });

  it('spares leftovers younger than the grace period', async () => {
    await mkdir(path.join(root, '.tmp'), { recursive: true });
    const old = path.join(root, '.tmp', 'old.part');
    await writeFile(old, 'x');
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(old, hourAgo, hourAgo);
    await writeFile(path.join(root, '.tmp', 'fresh.part'), 'y');
    await expect(storage.sweepIncomplete({ olderThanMs: 600_000 })).resolves.toBe(1);
    expect(await tempNames()).toEqual(['fresh.part']);
  });
});

describe('FsStorage keys', () => {
  const bad = [
    '',
    '..',
    '../outside',
    'uploads/../../outside',
    'uploads/..',
    '/etc/passwd',
    'uploads//x',
    'uploads/',
    '.tmp/x',
    'uploads/.hidden',
    'Uploads/X',
    'uploads\\..\\x',
    'uploads/a b',
    'uploads/a\0b',
    'uploads/Überweisung',
    'uploads/a..b',
    `uploads/${'a'.repeat(200)}`,
    'a/b/c/d/e/f/g/h/i',
  ];

  it.each(bad)('refuses %j on every operation and writes nothing', async (key) => {
    await expect(storage.put(key, Readable.from([Buffer.from('x')]))).rejects.toBeInstanceOf(InvalidKeyError);
    await expect(storage.get(key)).rejects.toBeInstanceOf(InvalidKeyError);
    await expect(storage.stat(key)).rejects.toBeInstanceOf(InvalidKeyError);
    await expect(storage.delete(key)).rejects.toBeInstanceOf(InvalidKeyError);
    expect(await allFiles(dir)).toEqual([]);
  });

  it('makes fresh keys the store accepts', async () => {
    const keys = [newUploadKey(), newUploadKey(), newEntryKey(12), newEntryKey('abc-1')];
    expect(new Set(keys).size).toBe(4);
    for (const key of keys) await storage.put(key, Readable.from([Buffer.from(key)]));
    expect(keys[0]).toMatch(/^uploads\/[0-9a-f-]{36}$/);
    expect(keys[2]).toMatch(/^entries\/12\/[0-9a-f-]{36}$/);
    expect(() => newEntryKey('../1')).toThrow(InvalidKeyError);
  });
});

describe('FsStorage.putFile', () => {
  it('moves a local file in without copying it', async () => {
    const source = path.join(dir, 'extracted.dcm');
    const bytes = randomBytes(123_456);
    await writeFile(source, bytes);
    const inode = (await stat(source)).ino;
    const key = newEntryKey(3);
    await expect(storage.putFile(key, source)).resolves.toEqual({ size: bytes.length });
    const stored = path.join(root, ...key.split('/'));
    expect((await stat(stored)).ino).toBe(inode);
    await expect(lstat(source)).rejects.toThrow(/ENOENT/);
    expect(await buffer(await storage.get(key))).toEqual(bytes);
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

  it('refuses an existing key and leaves the source for the caller', async () => {
    const key = newEntryKey(5);
    await storage.put(key, Readable.from([Buffer.from('first')]));
    const source = path.join(dir, 'again.bin');
    await writeFile(source, 'second');
    await expect(storage.putFile(key, source)).rejects.toBeInstanceOf(ObjectExistsError);
    expect((await readFile(source)).toString()).toBe('second');
    expect((await buffer(await storage.get(key))).toString()).toBe('first');
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

  it('refuses a symbolic link, which could point anywhere', async () => {
    const link = path.join(dir, 'link.dcm');
    await symlink('/etc/passwd', link);
    const key = newEntryKey(6);
    await expect(storage.putFile(key, link)).rejects.toThrow(/regular file/);
    expect(await storage.stat(key)).toBeNull();
  });
});

describe('FsStorage.list', () => {
  async function keysUnder(prefix: string): Promise<string[]> {
    const found: string[] = [];
    for await (const object of storage.list(prefix)) found.push(`${object.key}:${object.size}`);
    return found.sort();
  }

  it('lists complete objects under a prefix with their sizes, never temp files', async () => {
    const a = newEntryKey(12);
    const b = newEntryKey(12);
    const other = newEntryKey(13);
    const upload = newUploadKey();
    await storage.put(a, Readable.from([Buffer.from('aa')]));
    await storage.put(b, Readable.from([Buffer.from('bbb')]));
    await storage.put(other, Readable.from([Buffer.from('c')]));
    await storage.put(upload, Readable.from([Buffer.from('dddd')]));
    const pending = new PassThrough();
    const put = storage.put(newUploadKey(), pending);
    pending.write('partial');
    await until(async () => (await tempNames()).length === 1);

    expect(await keysUnder('entries/12/')).toEqual([`${a}:2`, `${b}:3`].sort());
    expect(await keysUnder('entries/')).toEqual([`${a}:2`, `${b}:3`, `${other}:1`].sort());
    expect(await keysUnder('')).toEqual([`${a}:2`, `${b}:3`, `${other}:1`, `${upload}:4`].sort());
    expect(await keysUnder('entries/99/')).toEqual([]);
    pending.end();
    await put;
  });

  it.each(['entries/12', '../', '/', 'entries//', '.tmp/'])('refuses the prefix %j', async (prefix) => {
    await expect(keysUnder(prefix)).rejects.toBeInstanceOf(InvalidKeyError);
  });
});

describe('FsStorage.openLocal', () => {
  it('answers a path holding the object, and not found for a missing key', async () => {
    const key = newUploadKey();
    await storage.put(key, Readable.from([Buffer.from('local')]));
    const copy = await storage.openLocal(key);
    expect((await readFile(copy.path)).toString()).toBe('local');
    await copy.release();
    expect(await storage.stat(key)).toEqual({ size: 5 });
    await expect(storage.openLocal(newUploadKey())).rejects.toBeInstanceOf(ObjectNotFoundError);
    await expect(storage.openLocal('uploads')).rejects.toBeInstanceOf(ObjectNotFoundError);
  });
});

describe('createStorage', () => {
  it('keeps objects under DATA_DIR/objects', async () => {
    const store = createStorage({ dataDir: dir });
    const key = newUploadKey();
    await store.put(key, Readable.from([Buffer.from('here')]));
    expect((await readFile(path.join(dir, 'objects', ...key.split('/')))).toString()).toBe('here');
  });
});
