// The one place that decides which backend holds the bytes (DESIGN §3): callers only see Storage.
import path from 'node:path';
import type { Config } from '../config/config.js';
import { FsStorage } from './fs-storage.js';
import { LocalWorkArea } from './local-work-area.js';
import type { Storage } from './storage.js';
import { StorageUnavailableError } from './storage-errors.js';

type StorageConfig = Pick<Config, 'dataDir' | 's3' | 'maxUploadBytes'>;

/**
 * Unfinished multipart uploads of other nodes are left alone for at least this long after their
 * last part: only a node that died leaves one behind, and an hour's delay in removing it costs
 * little, while aborting a slow but live upload would fail it.
 */
const S3_MIN_SWEEP_AGE_MS = 3_600_000;

/**
 * S3 when S3_BUCKET is set; otherwise objects live in DATA_DIR/objects. The S3 backend is loaded
 * only when chosen: the AWS SDK alone holds ~30 MB, which a server storing on its own disk would
 * carry for nothing (and which its 200 MB bound while processing cannot spare; docs/processing.md).
 */
export async function createStorage(config: StorageConfig): Promise<Storage> {
  const s3 = config.s3;
  if (s3 === undefined) return new FsStorage(path.join(config.dataDir, 'objects'));
  const [{ createS3Client }, { S3Storage }] = await Promise.all([import('./s3-client.js'), import('./s3-storage.js')]);
  return new S3Storage({
    client: createS3Client(s3),
    target: { bucket: s3.bucket, endpoint: s3.endpoint, region: s3.region },
    workArea: new LocalWorkArea(s3.workDir, s3.workMaxBytes),
    maxObjectBytes: config.maxUploadBytes,
    minSweepAgeMs: S3_MIN_SWEEP_AGE_MS,
  });
}

/**
 * For entry points: the store of the configuration, checked once. A bucket that cannot be used
 * prints why (in words, with the setting to check) and stops the process with status 1.
 */
export async function createStorageOrExit(config: StorageConfig): Promise<Storage> {
  const storage = await createStorage(config);
  try {
    await storage.checkAccess();
  } catch (err) {
    if (!(err instanceof StorageUnavailableError)) throw err;
    console.error(err.message);
    process.exit(1);
  }
  // Copies of archives that a process killed mid-job left in the local work area.
  if (config.s3 !== undefined) {
    const { S3Storage } = await import('./s3-storage.js');
    if (storage instanceof S3Storage) await storage.workArea.sweep();
  }
  return storage;
}
