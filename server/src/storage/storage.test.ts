// The Storage contract (storage.ts), run against every backend: the filesystem and S3 (a loopback
// s3rver). What only one backend can show (file modes, descriptors, the S3 work area) is tested
// in fs-storage.test.ts and s3-storage.test.ts.
import { randomBytes } from 'node:crypto';
import { readFile, symlink, writeFile, lstat } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKENDS, closeSharedTestS3, openStorageUnderTest, type StorageUnderTest } from '../../test/storage-backends.js';
import { newEntryKey, newUploadKey } from './object-key.js';
import type { Storage } from './storage.js';
import { InvalidKeyError, InvalidRangeError, ObjectExistsError, ObjectNotFoundError } from './storage-errors.js';

afterAll(closeSharedTestS3);

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1000; i += 1) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('condition never became true');
}

async function keysUnder(storage: Storage, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for await (const object of storage.list(prefix)) found.push(`${object.key}:${object.size}`);
  return found.sort();
}

describe.each(BACKENDS)('Storage contract on %s', (backend) => {
  let under: StorageUnderTest;
  let storage: Storage;

  beforeEach(async () => {
    under = await openStorageUnderTest(backend);
    storage = under.storage;
  });

  afterEach(async () => {
    await under.close();
  });

  /** Nothing stored and nothing half-stored. */
  async function expectEmpty(): Promise<void> {
    expect(await keysUnder(storage, '')).toEqual([]);
    expect(await under.leftovers()).toBe(0);
  }

  describe('put/get/stat/delete', () => {
    it('stores bytes under the key and reads them back whole', async () => {
      const bytes = randomBytes(300_000);
      const key = newUploadKey();
      await expect(storage.put(key, Readable.from([bytes]))).resolves.toEqual({ size: bytes.length });
      expect(await buffer(await storage.get(key))).toEqual(bytes);
      expect(await storage.stat(key)).toEqual({ size: bytes.length });
    });

    it('stores a body of several parts (a multipart upload on S3) and reads it back whole and in ranges', async () => {
      const bytes = randomBytes(20 * 1024 * 1024 + 12_345);
      const key = newUploadKey();
      const chunks = Array.from({ length: Math.ceil(bytes.length / 65_536) }, (_, i) => bytes.subarray(i * 65_536, (i + 1) * 65_536));
      await expect(storage.put(key, Readable.from(chunks))).resolves.toEqual({ size: bytes.length });
      expect((await buffer(await storage.get(key))).equals(bytes)).toBe(true);
      const across = { start: 8 * 1024 * 1024 - 10, end: 16 * 1024 * 1024 + 10 };
      expect((await buffer(await storage.get(key, across))).equals(bytes.subarray(across.start, across.end + 1))).toBe(true);
      expect(await under.leftovers()).toBe(0);
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
      await expect(storage.get(key, { start: 50, end: 100 })).rejects.toMatchObject({ size: 100 });
      const empty = newUploadKey();
      await storage.put(empty, Readable.from([]));
      await expect(storage.get(empty, { start: 0, end: 0 })).rejects.toBeInstanceOf(InvalidRangeError);
      await expect(storage.get(newUploadKey(), { start: 0, end: 0 })).rejects.toBeInstanceOf(ObjectNotFoundError);
    });

    it('reads a range whole into memory, with the refusals of a streamed one', async () => {
      const bytes = randomBytes(10_000);
      const key = newEntryKey(43);
      await storage.put(key, Readable.from([bytes]));
      expect(await storage.getBytes(key, { start: 0, end: 9_999 })).toEqual(bytes);
      expect(await storage.getBytes(key, { start: 9_999, end: 9_999 })).toEqual(bytes.subarray(9_999));
      expect(await storage.getBytes(key, { start: 100, end: 4_999 })).toEqual(bytes.subarray(100, 5_000));
      await expect(storage.getBytes(key, { start: 5_000, end: 10_000 })).rejects.toMatchObject({ name: 'InvalidRangeError', size: 10_000 });
      await expect(storage.getBytes(key, { start: 10, end: 9 })).rejects.toBeInstanceOf(InvalidRangeError);
      await expect(storage.getBytes(key, { start: -1, end: 9 })).rejects.toBeInstanceOf(InvalidRangeError);
      await expect(storage.getBytes(newUploadKey(), { start: 0, end: 0 })).rejects.toBeInstanceOf(ObjectNotFoundError);
      await expect(storage.getBytes('entries/43', { start: 0, end: 0 })).rejects.toBeInstanceOf(ObjectNotFoundError);
      // Into a caller's buffer: the bytes land at its place, the bytes around it are untouched.
      const slab = Buffer.alloc(5_002, 7);
      const read = await storage.getBytes(key, { start: 100, end: 5_099 }, slab.subarray(1, 5_001));
      expect(read).toEqual(bytes.subarray(100, 5_100));
      expect(slab.subarray(1, 5_001)).toEqual(bytes.subarray(100, 5_100));
      expect([slab[0], slab[5_001]]).toEqual([7, 7]);
      await expect(storage.getBytes(key, { start: 0, end: 9 }, Buffer.alloc(9))).rejects.toBeInstanceOf(RangeError);
    });

    it('answers not found for missing keys and for prefixes that are only folders', async () => {
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

    it('answers that it can be used', async () => {
      await expect(storage.checkAccess()).resolves.toBeUndefined();
    });
  });

  describe('durability and failure', () => {
    it('shows nothing under the key until the last byte is written', async () => {
      const body = new PassThrough();
      const key = newUploadKey();
      const put = storage.put(key, body);
      body.write(randomBytes(under.bytesBeforeLeftover));
      await until(async () => (await under.leftovers()) === 1);
      expect(await storage.stat(key)).toBeNull();
      await expect(storage.get(key)).rejects.toBeInstanceOf(ObjectNotFoundError);
      expect(await keysUnder(storage, '')).toEqual([]);

      body.end(randomBytes(1000));
      await expect(put).resolves.toEqual({ size: under.bytesBeforeLeftover + 1000 });
      expect(await storage.stat(key)).toEqual({ size: under.bytesBeforeLeftover + 1000 });
      expect(await under.leftovers()).toBe(0);
    });

    it('leaves no object and nothing half-stored when aborted mid-stream', async () => {
      const body = new PassThrough();
      const controller = new AbortController();
      const key = newUploadKey();
      const put = storage.put(key, body, { signal: controller.signal });
      body.write(randomBytes(under.bytesBeforeLeftover));
      await until(async () => (await under.leftovers()) === 1);
      controller.abort();
      await expect(put).rejects.toThrow(/abort/i);
      expect(await storage.stat(key)).toBeNull();
      await expectEmpty();
      expect(body.destroyed).toBe(true);
    });

    it('leaves nothing when the source fails mid-stream (client gone), and says so', async () => {
      const body = new PassThrough();
      const key = newUploadKey();
      const put = storage.put(key, body);
      body.write(randomBytes(under.bytesBeforeLeftover));
      await until(async () => (await under.leftovers()) === 1);
      body.destroy(new Error('socket hang up'));
      await expect(put).rejects.toThrow('socket hang up');
      await expectEmpty();
    });

    it('leaves nothing when the source fails before its first part is complete', async () => {
      const body = new PassThrough();
      const put = storage.put(newUploadKey(), body);
      body.write(randomBytes(1000));
      await new Promise((r) => setTimeout(r, 50));
      body.destroy(new Error('socket hang up'));
      await expect(put).rejects.toThrow('socket hang up');
      await expectEmpty();
    });

    it('refuses an already aborted signal without creating anything', async () => {
      const key = newUploadKey();
      await expect(storage.put(key, Readable.from([Buffer.from('x')]), { signal: AbortSignal.abort() })).rejects.toThrow(/abort/i);
      await expectEmpty();
    });

    it('never rewrites an existing object: a second put to the key fails and the first bytes stay', async () => {
      const key = newUploadKey();
      await storage.put(key, Readable.from([Buffer.from('first')]));
      const second = Readable.from([Buffer.from('second')]);
      await expect(storage.put(key, second)).rejects.toBeInstanceOf(ObjectExistsError);
      expect(second.destroyed).toBe(true);
      expect((await buffer(await storage.get(key))).toString()).toBe('first');
      expect(await under.leftovers()).toBe(0);
    });

    it('lets exactly one of two racing puts to the same key win, without mixing their bytes', async () => {
      const key = newUploadKey();
      const a = randomBytes(1024 * 1024);
      const b = randomBytes(1024 * 1024);
      const results = await Promise.allSettled([storage.put(key, Readable.from([a])), storage.put(key, Readable.from([b]))]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]!.reason).toBeInstanceOf(ObjectExistsError);
      const stored = await buffer(await storage.get(key));
      expect(stored.equals(a) || stored.equals(b)).toBe(true);
      expect(await under.leftovers()).toBe(0);
    });

    it('stores 20 concurrent puts, each with its own bytes', async () => {
      const inputs = Array.from({ length: 20 }, (_, i) => ({ key: newUploadKey(), bytes: randomBytes(50_000 + i * 997) }));
      await Promise.all(inputs.map(({ key, bytes }) => storage.put(key, Readable.from([bytes]))));
      for (const { key, bytes } of inputs) expect(await buffer(await storage.get(key))).toEqual(bytes);
      expect(await under.leftovers()).toBe(0);
    });
  });

  describe('sweepIncomplete', () => {
    it('removes the leftovers of interrupted puts and leaves complete objects alone', async () => {
      const key = newUploadKey();
      await storage.put(key, Readable.from([Buffer.from('kept')]));
      await under.makeLeftover();
      await under.makeLeftover();
      expect(await under.leftovers()).toBe(2);
      await expect(storage.sweepIncomplete()).resolves.toBe(2);
      expect(await under.leftovers()).toBe(0);
      expect(await storage.stat(key)).toEqual({ size: 4 });
      await expect(storage.sweepIncomplete()).resolves.toBe(0);
    });

    it('answers 0 on a store never written to', async () => {
      await expect(storage.sweepIncomplete()).resolves.toBe(0);
    });

    it('spares leftovers touched within the grace period', async () => {
      await under.makeLeftover(3_600_000);
      await under.makeLeftover(0);
      await expect(storage.sweepIncomplete({ olderThanMs: 600_000 })).resolves.toBe(1);
      expect(await under.leftovers()).toBe(1);
    });
  });

  describe('keys', () => {
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
      await expectEmpty();
    });

    it('makes fresh keys the store accepts', async () => {
      const keys = [newUploadKey(), newUploadKey(), newEntryKey(12), newEntryKey('abc-1')];
      expect(new Set(keys).size).toBe(4);
      for (const key of keys) await storage.put(key, Readable.from([Buffer.from(key)]));
      for (const key of keys) expect((await buffer(await storage.get(key))).toString()).toBe(key);
      expect(keys[0]).toMatch(/^uploads\/[0-9a-f-]{36}$/);
      expect(keys[2]).toMatch(/^entries\/12\/[0-9a-f-]{36}$/);
      expect(() => newEntryKey('../1')).toThrow(InvalidKeyError);
    });
  });

  describe('putBytes', () => {
    it('stores bytes held in memory, leaving no temporary data', async () => {
      const key = newUploadKey();
      const bytes = randomBytes(39_000);
      await expect(storage.putBytes(key, bytes)).resolves.toEqual({ size: bytes.length });
      expect(await buffer(await storage.get(key))).toEqual(bytes);
      expect(await storage.stat(key)).toEqual({ size: bytes.length });
      expect(await under.leftovers()).toBe(0);
    });

    it('never rewrites an existing object, and of two racing puts exactly one wins', async () => {
      const key = newUploadKey();
      await storage.putBytes(key, Buffer.from('first'));
      await expect(storage.putBytes(key, Buffer.from('second'))).rejects.toBeInstanceOf(ObjectExistsError);
      expect((await buffer(await storage.get(key))).toString()).toBe('first');

      const raced = newUploadKey();
      const [a, b] = [randomBytes(50_000), randomBytes(50_000)];
      const results = await Promise.allSettled([storage.putBytes(raced, a), storage.putBytes(raced, b)]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const stored = await buffer(await storage.get(raced));
      expect(stored.equals(a) || stored.equals(b)).toBe(true);
      expect(await under.leftovers()).toBe(0);
    });

    it('refuses an already aborted signal without creating anything', async () => {
      const controller = new AbortController();
      controller.abort(new Error('stopped'));
      await expect(storage.putBytes(newUploadKey(), randomBytes(100), { signal: controller.signal })).rejects.toThrow('stopped');
      await expectEmpty();
    });

    it('stores 20 concurrent puts, each with its own bytes', async () => {
      const inputs = Array.from({ length: 20 }, (_, i) => ({ key: newUploadKey(), bytes: randomBytes(30_000 + i * 997) }));
      await Promise.all(inputs.map(({ key, bytes }) => storage.putBytes(key, bytes)));
      for (const { key, bytes } of inputs) expect(await buffer(await storage.get(key))).toEqual(bytes);
      expect(await under.leftovers()).toBe(0);
    });
  });

  describe('putFile', () => {
    it('moves a local file in: the source is gone and the bytes are stored', async () => {
      const source = path.join(under.dir, 'extracted.dcm');
      const bytes = randomBytes(123_456);
      await writeFile(source, bytes);
      const key = newEntryKey(3);
      await expect(storage.putFile(key, source)).resolves.toEqual({ size: bytes.length });
      await expect(lstat(source)).rejects.toThrow(/ENOENT/);
      expect(await buffer(await storage.get(key))).toEqual(bytes);
    });

    it('refuses an existing key and leaves the source for the caller', async () => {
      const key = newEntryKey(5);
      await storage.put(key, Readable.from([Buffer.from('first')]));
      const source = path.join(under.dir, 'again.bin');
      await writeFile(source, 'second');
      await expect(storage.putFile(key, source)).rejects.toBeInstanceOf(ObjectExistsError);
      expect((await readFile(source)).toString()).toBe('second');
      expect((await buffer(await storage.get(key))).toString()).toBe('first');
    });

    it('refuses a symbolic link, which could point anywhere', async () => {
      const link = path.join(under.dir, 'link.dcm');
      await symlink('/etc/passwd', link);
      const key = newEntryKey(6);
      await expect(storage.putFile(key, link)).rejects.toThrow(/regular file/);
      expect(await storage.stat(key)).toBeNull();
    });
  });

  describe('list', () => {
    it('lists complete objects under a prefix with their sizes, never puts in progress', async () => {
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
      pending.write(randomBytes(under.bytesBeforeLeftover));
      await until(async () => (await under.leftovers()) === 1);

      expect(await keysUnder(storage, 'entries/12/')).toEqual([`${a}:2`, `${b}:3`].sort());
      expect(await keysUnder(storage, 'entries/')).toEqual([`${a}:2`, `${b}:3`, `${other}:1`].sort());
      expect(await keysUnder(storage, '')).toEqual([`${a}:2`, `${b}:3`, `${other}:1`, `${upload}:4`].sort());
      expect(await keysUnder(storage, 'entries/99/')).toEqual([]);
      pending.end();
      await put;
    });

    it.each(['entries/12', '../', '/', 'entries//', '.tmp/'])('refuses the prefix %j', async (prefix) => {
      await expect(keysUnder(storage, prefix)).rejects.toBeInstanceOf(InvalidKeyError);
    });
  });

  describe('openLocal', () => {
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
});
