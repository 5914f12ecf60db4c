// What only the S3 backend can show: its capped local work area, its sweep beside its own puts in
// progress, services lacking calls, and failures that must say what is wrong without the secret.
// The Storage contract itself runs for every backend in storage.test.ts.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, utimes } from 'node:fs/promises';
import { inspect } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { CreateMultipartUploadCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestS3, type TestS3 } from '../../test/s3.js';
import type { S3Config } from '../config/config.js';
import { createStorage } from './create-storage.js';
import { LocalWorkArea, WorkAreaTooSmallError } from './local-work-area.js';
import { newUploadKey } from './object-key.js';
import { createS3Client } from './s3-client.js';
import { S3Storage } from './s3-storage.js';
import { StorageUnavailableError } from './storage-errors.js';

const SECRET = 'never-in-a-message-0123456789abcdef';

let s3: TestS3;
let dir: string;

beforeAll(async () => {
  s3 = await startTestS3();
});
afterAll(() => s3.close());
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 's3-storage-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function storageFor(config: S3Config, endpoint = s3.endpoint): S3Storage {
  return new S3Storage({
    client: createS3Client(config),
    target: { bucket: config.bucket, endpoint, region: config.region },
    workArea: new LocalWorkArea(config.workDir, config.workMaxBytes),
    maxObjectBytes: 1024 ** 3,
  });
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1000; i += 1) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('condition never became true');
}

describe('S3Storage local work area', () => {
  it('copies an object for openLocal into the work area and removes the copy on release', async () => {
    const bucket = await s3.createBucket();
    const storage = storageFor(s3.config(bucket, path.join(dir, 'work')));
    const key = newUploadKey();
    const bytes = randomBytes(100_000);
    await storage.put(key, Readable.from([bytes]));
    const copy = await storage.openLocal(key);
    expect(copy.path.startsWith(path.join(dir, 'work', String(process.pid)))).toBe(true);
    expect(await readFile(copy.path)).toEqual(bytes);
    expect(storage.workArea.usedBytes).toBe(100_000);
    await copy.release();
    expect(await readdir(storage.workArea.dir)).toEqual([]);
    expect(storage.workArea.usedBytes).toBe(0);
  });

  it('makes a copy wait while the area is full, and refuses one larger than the whole area in words', async () => {
    const bucket = await s3.createBucket();
    const storage = storageFor(s3.config(bucket, path.join(dir, 'work'), 1024 * 1024));
    const [a, b, big] = [newUploadKey(), newUploadKey(), newUploadKey()];
    await storage.put(a, Readable.from([randomBytes(600_000)]));
    await storage.put(b, Readable.from([randomBytes(600_000)]));
    await storage.put(big, Readable.from([randomBytes(1024 * 1024 + 1)]));

    const first = await storage.openLocal(a);
    let secondOpened = false;
    const second = storage.openLocal(b).then((copy) => {
      secondOpened = true;
      return copy;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(secondOpened).toBe(false);
    await first.release();
    const copy = await second;
    expect((await readFile(copy.path)).length).toBe(600_000);
    await copy.release();

    const refused = storage.openLocal(big);
    await expect(refused).rejects.toBeInstanceOf(WorkAreaTooSmallError);
    await expect(refused).rejects.toThrow(/Raise S3_WORK_MAX_BYTES/);
    expect(storage.workArea.usedBytes).toBe(0);
  });

  it('gives the space back when the download fails (the object vanished)', async () => {
    const bucket = await s3.createBucket();
    const storage = storageFor(s3.config(bucket, path.join(dir, 'work')));
    await expect(storage.openLocal(newUploadKey())).rejects.toThrow(/not found/);
    expect(storage.workArea.usedBytes).toBe(0);
  });

  it('removes copies left by processes that are gone, and only theirs', async () => {
    const root = path.join(dir, 'work');
    const area = new LocalWorkArea(root, 1024 ** 2);
    const mine = await area.reserve(10);
    const { writeFile, mkdir } = await import('node:fs/promises');
    await writeFile(mine.path, 'mine');
    // PID 2^22 + 1 is above Linux's largest: no process has it.
    await mkdir(path.join(root, '4194305'), { recursive: true });
    await writeFile(path.join(root, '4194305', 'copy'), 'left behind');
    await expect(area.sweep()).resolves.toBe(1);
    expect(await readdir(root)).toEqual([String(process.pid)]);
    expect((await readFile(mine.path)).toString()).toBe('mine');
    await mine.release();
  });
});

describe('S3Storage sweep', () => {
  it('leaves another node\'s quiet upload alone for the minimum age, and sweeps it at start-up', async () => {
    const bucket = await s3.createBucket();
    const config = s3.config(bucket, path.join(dir, 'work'));
    const storage = new S3Storage({
      client: createS3Client(config),
      target: { bucket, endpoint: s3.endpoint, region: config.region },
      workArea: new LocalWorkArea(config.workDir, config.workMaxBytes),
      maxObjectBytes: 1024 ** 3,
      minSweepAgeMs: 3_600_000,
    });
    const client = createS3Client(config);
    const key = newUploadKey();
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
    await client.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: 1, Body: randomBytes(1000) }));
    const tenMinutesAgo = new Date(Date.now() - 600_000);
    const uploadDir = path.join(s3.directory, bucket, '._S3rver_uploads', UploadId!);
    for (const name of await readdir(uploadDir)) await utimes(path.join(uploadDir, name), tenMinutesAgo, tenMinutesAgo);
    await expect(storage.sweepIncomplete({ olderThanMs: 120_000 })).resolves.toBe(0);
    await expect(storage.sweepIncomplete()).resolves.toBe(1);
    expect(await s3.unfinishedUploads(bucket)).toEqual([]);
    client.destroy();
  });

  it("never aborts this process's own put in progress, however long it has run", async () => {
    const bucket = await s3.createBucket();
    const storage = storageFor(s3.config(bucket, path.join(dir, 'work')));
    const body = new PassThrough();
    const key = newUploadKey();
    const put = storage.put(key, body);
    body.write(randomBytes(8 * 1024 * 1024 + 1));
    await until(async () => (await s3.unfinishedUploads(bucket)).length === 1);
    await expect(storage.sweepIncomplete()).resolves.toBe(0);
    body.end(randomBytes(10));
    await expect(put).resolves.toEqual({ size: 8 * 1024 * 1024 + 11 });
  });

  it('answers 0 on a service that cannot list unfinished uploads (plain s3rver), and puts still clean up what they can', async () => {
    const plain = await startTestS3({ withUploadListing: false });
    try {
      const bucket = await plain.createBucket();
      const storage = storageFor(plain.config(bucket, path.join(dir, 'work')), plain.endpoint);
      await expect(storage.sweepIncomplete()).resolves.toBe(0);
      const body = new PassThrough();
      const put = storage.put(newUploadKey(), body);
      body.write(randomBytes(8 * 1024 * 1024 + 1));
      await until(async () => (await plain.unfinishedUploads(bucket)).length === 1);
      body.destroy(new Error('socket hang up'));
      // The client's failure is what the caller hears, not the service's refusal to abort.
      await expect(put).rejects.toThrow('socket hang up');
    } finally {
      await plain.close();
    }
  });
});

describe('S3Storage failures', () => {
  // s3rver does not check version 4 signatures, so an unknown key id stands for refused credentials.
  it('says which setting to check when the credentials are refused, and never shows the secret', async () => {
    const bucket = await s3.createBucket();
    const config = s3.config(bucket, path.join(dir, 'work'));
    const storage = storageFor({ ...config, credentials: { accessKeyId: 'NOT-A-KEY', secretAccessKey: SECRET } });
    const failures = await Promise.allSettled([
      storage.checkAccess(),
      storage.put(newUploadKey(), Readable.from([Buffer.from('x')])),
      storage.get(newUploadKey()),
      storage.stat(newUploadKey()),
    ]);
    for (const failure of failures) {
      expect(failure.status).toBe('rejected');
      const reason = (failure as PromiseRejectedResult).reason as Error;
      expect(reason).toBeInstanceOf(StorageUnavailableError);
      expect(reason.message).toMatch(/S3_SECRET_ACCESS_KEY|S3_ACCESS_KEY_ID/);
      expect(inspect(reason, { depth: 20 })).not.toContain(SECRET);
      expect(JSON.stringify(reason)).not.toContain(SECRET);
    }
  });

  it('names a missing bucket, and an address where nothing answers', async () => {
    const missing = storageFor(s3.config('no-such-bucket', path.join(dir, 'work')));
    await expect(missing.checkAccess()).rejects.toThrow(
      `Cannot use the S3 bucket "no-such-bucket" at ${s3.endpoint}: the bucket "no-such-bucket" does not exist: create it, or correct S3_BUCKET.`,
    );
    const nowhere = { ...s3.config('portal', path.join(dir, 'work')), endpoint: 'http://127.0.0.1:9' };
    await expect(storageFor(nowhere, nowhere.endpoint).checkAccess()).rejects.toThrow(
      'Cannot use the S3 bucket "portal" at http://127.0.0.1:9: nothing accepts connections at that address: check S3_ENDPOINT and that the service runs.',
    );
  });
});

describe('createStorage with S3 settings', () => {
  it('stores in the bucket and nothing under DATA_DIR', async () => {
    const bucket = await s3.createBucket();
    const storage = await createStorage({ dataDir: dir, maxUploadBytes: 1024 ** 3, s3: s3.config(bucket, path.join(dir, 's3-work')) });
    expect(storage).toBeInstanceOf(S3Storage);
    const key = newUploadKey();
    await storage.put(key, Readable.from([Buffer.from('in the bucket')]));
    const keys: string[] = [];
    for await (const object of storage.list('')) keys.push(object.key);
    expect(keys).toEqual([key]);
    expect(await readdir(dir)).toEqual([]);
  });
});
