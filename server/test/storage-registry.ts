// Which test servers keep their objects in S3 (s3rver), so helpers that look at what is stored
// (uploads.ts: storedFiles, expectNoLeftovers) look in the bucket instead of DATA_DIR/objects.
import fs from 'node:fs';
import path from 'node:path';

export type TestStorageBackend = 'filesystem' | 's3';

/** TEST_STORAGE=s3 runs the API tests chosen in vitest.config.ts with an S3 bucket. */
export function testStorageBackend(): TestStorageBackend {
  const chosen = process.env.TEST_STORAGE ?? 'filesystem';
  if (chosen !== 'filesystem' && chosen !== 's3') throw new Error(`TEST_STORAGE must be filesystem or s3, not ${chosen}`);
  return chosen;
}

interface BucketOnDisk {
  /** s3rver's folder. */
  directory: string;
  bucket: string;
}

const buckets = new Map<string, BucketOnDisk>();

export function registerBucket(dataDir: string, bucket: BucketOnDisk): void {
  buckets.set(path.resolve(dataDir), bucket);
}

const OBJECT_SUFFIX = '._S3rver_object';
const UNFINISHED = '._S3rver_uploads';

/**
 * What a test server has stored, as keys; for an S3 one also, as leftovers a test must not find:
 * unfinished multipart uploads (`.tmp/<id>`), local copies not removed (`s3-work/…`) and
 * anything written under DATA_DIR/objects (`objects/…`). Null for a filesystem-backed server.
 */
export function bucketContents(dataDir: string): string[] | null {
  const found = buckets.get(path.resolve(dataDir));
  if (found === undefined) return null;
  const root = path.join(found.directory, found.bucket);
  const files = (dir: string) =>
    fs.existsSync(dir)
      ? fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => path.relative(dir, path.join(d.parentPath, d.name)))
      : [];
  const keys = files(root)
    .filter((f) => f.endsWith(OBJECT_SUFFIX) && !f.startsWith(UNFINISHED))
    .map((f) => f.slice(0, -OBJECT_SUFFIX.length));
  const unfinished = fs.existsSync(path.join(root, UNFINISHED)) ? fs.readdirSync(path.join(root, UNFINISHED)).map((id) => `.tmp/${id}`) : [];
  const copies = files(path.join(dataDir, 's3-work')).map((f) => `s3-work/${f}`);
  const local = files(path.join(dataDir, 'objects')).map((f) => `objects/${f}`);
  return [...keys, ...unfinished, ...copies, ...local];
}
