// storeArriving: the byte rules are the same whichever way an upload's bytes arrive (a stream, a
// body read whole, bytes in memory, a local file with or without its SHA-256 taken on arrival).
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { FsStorage } from '../storage/fs-storage.js';
import { newUploadKey } from '../storage/object-key.js';
import { storeArriving, type ArrivingBytes } from './arriving-bytes.js';
import { UPLOAD_HEAD_BYTES, UploadTooLargeError } from './upload-pipeline.js';

let dir: string;
let storage: FsStorage;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'arriving-'));
  storage = new FsStorage(path.join(dir, 'objects'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const objects = async () => (await readdir(path.join(dir, 'objects'), { recursive: true, withFileTypes: true }).catch(() => [])).filter((e) => e.isFile());

const WAYS: Record<string, (data: Buffer) => Promise<ArrivingBytes>> = {
  'a stream': (data) => Promise.resolve({ from: 'stream', source: Readable.from([data.subarray(0, 1000), data.subarray(1000)]) }),
  'a body read whole': (data) => Promise.resolve({ from: 'stream', source: Readable.from([data]), whole: true }),
  'bytes in memory': (data) => Promise.resolve({ from: 'memory', bytes: data }),
  'a local file': async (data) => {
    const file = path.join(dir, `local-${randomBytes(4).toString('hex')}`);
    await writeFile(file, data);
    return { from: 'file', path: file };
  },
  'a local file hashed on arrival': async (data) => {
    const file = path.join(dir, `local-${randomBytes(4).toString('hex')}`);
    await writeFile(file, data);
    return { from: 'file', path: file, sha256: sha(data), size: data.length };
  },
};

describe.each(Object.keys(WAYS))('storeArriving from %s', (way) => {
  const arrive = WAYS[way]!;

  it('stores the bytes, answers their size and SHA-256, and hands the first bytes to the check', async () => {
    const data = randomBytes(UPLOAD_HEAD_BYTES * 3);
    let head: Buffer | undefined;
    const key = newUploadKey();
    const stored = await storeArriving(await arrive(data), { storage, key, maxBytes: data.length, checkHead: (h) => (head = Buffer.from(h)) });
    expect(stored).toMatchObject({ key, size: data.length, sha256: sha(data) });
    expect(head?.equals(data.subarray(0, UPLOAD_HEAD_BYTES))).toBe(true);
    expect((await readFile(path.join(dir, 'objects', key))).equals(data)).toBe(true);
  });

  it('refuses more bytes than the limit with 413 and stores nothing', async () => {
    const data = randomBytes(5000);
    await expect(storeArriving(await arrive(data), { storage, key: newUploadKey(), maxBytes: 4999 })).rejects.toBeInstanceOf(UploadTooLargeError);
    expect(await objects()).toEqual([]);
  });

  it('stores nothing when the content check refuses, and answers what it threw', async () => {
    const data = randomBytes(5000);
    const refusal = new AppError(415, 'not what its name says');
    const arriving = await arrive(data);
    await expect(storeArriving(arriving, { storage, key: newUploadKey(), maxBytes: data.length, checkHead: () => { throw refusal; } })).rejects.toBe(refusal);
    expect(await objects()).toEqual([]);
    // A local file refused stays where it was, for its caller to remove.
    if (arriving.from === 'file') expect(existsSync(arriving.path)).toBe(true);
  });
});
