// An S3-compatible service for tests: s3rver (npm) on a loopback port, storing in a temporary
// folder, started in the test's own process. s3rver lacks three calls that real services have and
// the S3 backend uses to sweep unfinished uploads (ListMultipartUploads, ListParts,
// AbortMultipartUpload); `withUploadListing` adds them over s3rver's own folder of unfinished
// uploads (<dir>/<bucket>/._S3rver_uploads/<id>/{key,1,2…}), so the sweep runs against real
// leftovers. Without it the test sees what plain s3rver answers (NotImplemented, 405).
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3Config } from '../src/config/config.js';

/** s3rver's one account. */
export const TEST_S3_ACCESS_KEY_ID = 'S3RVER';
export const TEST_S3_SECRET_ACCESS_KEY = 'S3RVER';

export interface TestS3 {
  endpoint: string;
  /** Where s3rver keeps buckets, objects and unfinished uploads. */
  directory: string;
  /** A fresh, empty bucket. */
  createBucket(): Promise<string>;
  /** Settings that make the portal store in `bucket`. */
  env(bucket: string): Record<string, string>;
  config(bucket: string, workDir: string, workMaxBytes?: number): S3Config;
  /** Unfinished multipart uploads left in `bucket`. */
  unfinishedUploads(bucket: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function startTestS3(opts: { withUploadListing?: boolean } = {}): Promise<TestS3> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  if (opts.withUploadListing ?? true) {
    // Before s3rver's router (the last middleware), after its XML encoder.
    server.middleware.splice(server.middleware.length - 1, 0, uploadListing(directory));
  }
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: TEST_S3_ACCESS_KEY_ID, secretAccessKey: TEST_S3_SECRET_ACCESS_KEY },
  });
  const uploadsDir = (bucket: string) => path.join(directory, bucket, '._S3rver_uploads');
  return {
    endpoint,
    directory,
    async createBucket() {
      const bucket = `test-${randomBytes(6).toString('hex')}`;
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      return bucket;
    },
    env: (bucket) => ({
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: TEST_S3_ACCESS_KEY_ID,
      S3_SECRET_ACCESS_KEY: TEST_S3_SECRET_ACCESS_KEY,
      S3_FORCE_PATH_STYLE: 'true',
    }),
    config: (bucket, workDir, workMaxBytes = 1024 ** 3) => ({
      bucket,
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: TEST_S3_ACCESS_KEY_ID, secretAccessKey: TEST_S3_SECRET_ACCESS_KEY },
      workDir,
      workMaxBytes,
    }),
    unfinishedUploads: (bucket) => readdir(uploadsDir(bucket)).catch(() => []),
    async close() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** The part of Koa's context the added calls use (s3rver ships no types). */
interface Context {
  path: string;
  method: string;
  query: Record<string, string | string[] | undefined>;
  body: unknown;
  status: number;
  type: string;
}
type Next = () => Promise<void>;

function uploadListing(directory: string) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const [bucket, ...rest] = ctx.path.slice(1).split('/');
    const key = rest.join('/');
    if (!bucket) return next();
    const uploads = path.join(directory, bucket, '._S3rver_uploads');
    if (ctx.method === 'GET' && key === '' && 'uploads' in ctx.query) {
      const upload = [];
      for (const id of await readdir(uploads).catch(() => [])) {
        const keyFile = path.join(uploads, id, 'key');
        const initiated = (await stat(keyFile)).mtime;
        upload.push({ Key: (await readFile(keyFile)).toString(), UploadId: id, Initiated: initiated.toISOString() });
      }
      ctx.body = { ListMultipartUploadsResult: { Bucket: bucket, IsTruncated: false, Upload: upload } };
      return;
    }
    const uploadId = ctx.query.uploadId;
    if (typeof uploadId !== 'string' || key === '' || !/^[0-9a-f]+$/.test(uploadId)) return next();
    const dir = path.join(uploads, uploadId);
    if (ctx.method === 'GET') {
      const names = await readdir(dir).catch(() => null);
      if (names === null) return noSuchUpload(ctx);
      const part = [];
      for (const name of names.filter((n) => /^\d+$/.test(n)).sort((a, b) => Number(a) - Number(b))) {
        const info = await stat(path.join(dir, name));
        part.push({ PartNumber: Number(name), LastModified: info.mtime.toISOString(), Size: info.size, ETag: '"x"' });
      }
      ctx.body = { ListPartsResult: { Bucket: bucket, Key: key, UploadId: uploadId, IsTruncated: false, Part: part } };
      return;
    }
    if (ctx.method === 'DELETE') {
      if ((await readdir(dir).catch(() => null)) === null) return noSuchUpload(ctx);
      await rm(dir, { recursive: true, force: true });
      ctx.status = 204;
      return;
    }
    return next();
  };
}

function noSuchUpload(ctx: Context): void {
  ctx.status = 404;
  ctx.type = 'application/xml';
  ctx.body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>';
}
