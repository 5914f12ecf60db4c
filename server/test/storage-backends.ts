// Both storage backends behind one harness, so the Storage contract suite runs unchanged against
// each: the filesystem under a temporary folder, and S3 in a fresh bucket of a loopback s3rver.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CreateMultipartUploadCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { FsStorage } from '../src/storage/fs-storage.js';
import { LocalWorkArea } from '../src/storage/local-work-area.js';
import { createS3Client } from '../src/storage/s3-client.js';
import { S3Storage } from '../src/storage/s3-storage.js';
import type { Storage } from '../src/storage/storage.js';
import { startTestS3, type TestS3 } from './s3.js';

export type BackendName = 'filesystem' | 's3';
export const BACKENDS: BackendName[] = ['filesystem', 's3'];

/** S3's smallest part (as the backend uses it): a put becomes a multipart upload past this. */
const S3_PART_BYTES = 8 * 1024 * 1024;

export interface StorageUnderTest {
  name: BackendName;
  storage: Storage;
  /** A temporary folder for the test's own files; removed by close(). */
  dir: string;
  /** Leftovers of puts in progress or interrupted: temp files, unfinished multipart uploads. */
  leftovers(): Promise<number>;
  /** Bytes a put must receive before its leftover exists (S3 starts a multipart upload with its second part). */
  bytesBeforeLeftover: number;
  /** An interrupted put of another process, last touched `ageMs` ago. */
  makeLeftover(ageMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** One s3rver per test file, shared by its tests (each gets its own bucket). */
let s3: Promise<TestS3> | undefined;

export function sharedTestS3(): Promise<TestS3> {
  s3 ??= startTestS3();
  return s3;
}

export async function closeSharedTestS3(): Promise<void> {
  const started = s3;
  s3 = undefined;
  if (started) await (await started).close();
}

export async function openStorageUnderTest(name: BackendName): Promise<StorageUnderTest> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `storage-${name}-`));
  if (name === 'filesystem') {
    const root = path.join(dir, 'objects');
    const temp = path.join(root, '.tmp');
    return {
      name,
      storage: new FsStorage(root),
      dir,
      leftovers: async () => (await readdir(temp).catch(() => [])).length,
      bytesBeforeLeftover: 64 * 1024,
      async makeLeftover(ageMs = 0) {
        await mkdir(temp, { recursive: true });
        const file = path.join(temp, `${randomBytes(8).toString('hex')}.part`);
        await writeFile(file, randomBytes(1000));
        const when = new Date(Date.now() - ageMs);
        await utimes(file, when, when);
      },
      close: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const service = await sharedTestS3();
  const bucket = await service.createBucket();
  const config = service.config(bucket, path.join(dir, 'work'));
  const client = createS3Client(config);
  const storage = new S3Storage({
    client,
    target: { bucket, endpoint: service.endpoint, region: config.region },
    workArea: new LocalWorkArea(config.workDir, config.workMaxBytes),
    maxObjectBytes: 1024 ** 3,
  });
  return {
    name,
    storage,
    dir,
    leftovers: async () => (await service.unfinishedUploads(bucket)).length,
    bytesBeforeLeftover: S3_PART_BYTES + 1,
    async makeLeftover(ageMs = 0) {
      const key = `uploads/${randomUUID()}`;
      const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
      await client.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: 1, Body: randomBytes(1000) }));
      const uploadDir = path.join(service.directory, bucket, '._S3rver_uploads', UploadId!);
      const when = new Date(Date.now() - ageMs);
      for (const name of await readdir(uploadDir)) await utimes(path.join(uploadDir, name), when, when);
    },
    close: async () => {
      client.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

