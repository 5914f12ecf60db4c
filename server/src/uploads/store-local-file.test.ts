// storeLocalFile: a finished resumable upload's file passes the multipart path's checks and moves
// into storage, whether its SHA-256 is computed here or was taken as its bytes arrived.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { FsStorage } from '../storage/fs-storage.js';
import { newUploadKey } from '../storage/object-key.js';
import { storeLocalFile, UPLOAD_HEAD_BYTES, UploadTooLargeError } from './upload-pipeline.js';

let dir: string;
let storage: FsStorage;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'store-local-'));
  storage = new FsStorage(path.join(dir, 'objects'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const objects = async () => (await readdir(path.join(dir, 'objects'), { recursive: true, withFileTypes: true }).catch(() => [])).filter((e) => e.isFile());

describe.each([
  ['read again', undefined],
  ['measured on arrival', 'given'],
] as const)('storeLocalFile, SHA-256 %s', (_how, given) => {
  async function store(data: Buffer, opts: { maxBytes?: number; checkHead?: (head: Buffer) => void } = {}) {
    const file = path.join(dir, 'upload');
    await writeFile(file, data);
    const key = newUploadKey();
    const stored = storeLocalFile({
      path: file,
      storage,
      key,
      maxBytes: opts.maxBytes ?? data.length,
      ...(opts.checkHead ? { checkHead: opts.checkHead } : {}),
      ...(given ? { sha256: sha(data) } : {}),
    });
    return { file, key, stored };
  }

  it('moves the file into storage with its size, SHA-256 and first bytes', async () => {
    const data = randomBytes(3 * 1024 * 1024 + 17);
    const heads: Buffer[] = [];
    const { file, key, stored } = await store(data, { checkHead: (head) => heads.push(head) });
    expect(await stored).toMatchObject({ key, size: data.length, sha256: sha(data) });
    expect(heads).toEqual([data.subarray(0, UPLOAD_HEAD_BYTES)]);
    expect(existsSync(file)).toBe(false);
    expect(sha(await readFile(path.join(dir, 'objects', ...key.split('/'))))).toBe(sha(data));
  });

  it('stores nothing and leaves the file when its first bytes are refused', async () => {
    const { file, stored } = await store(Buffer.from('not what the name says'), {
      checkHead: () => {
        throw new AppError(415, 'refused');
      },
    });
    await expect(stored).rejects.toThrow('refused');
    expect(existsSync(file)).toBe(true);
    expect(await objects()).toEqual([]);
  });

  it.each([
    ['its first bytes checked', true],
    ['nothing to check in it', false],
  ])('refuses a file over the limit with 413, storing nothing and leaving the file (%s)', async (_what, checked) => {
    const { file, stored } = await store(randomBytes(10_000), { maxBytes: 9_999, ...(checked ? { checkHead: () => undefined } : {}) });
    await expect(stored).rejects.toBeInstanceOf(UploadTooLargeError);
    expect(existsSync(file)).toBe(true);
    expect(await objects()).toEqual([]);
  });

  it('moves a file with nothing to check in its first bytes without reading them', async () => {
    const data = randomBytes(70_000);
    const { file, key, stored } = await store(data);
    expect(await stored).toMatchObject({ key, size: data.length, sha256: sha(data) });
    expect(existsSync(file)).toBe(false);
    expect(sha(await readFile(path.join(dir, 'objects', ...key.split('/'))))).toBe(sha(data));
  });
});
