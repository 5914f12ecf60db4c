// The one place that decides which backend holds the bytes (DESIGN §3): callers only see Storage.
import path from 'node:path';
import type { Config } from '../config/config.js';
import { FsStorage } from './fs-storage.js';
import type { Storage } from './storage.js';

/** Objects live in DATA_DIR/objects; an S3 backend chosen by S3_* settings will be returned here. */
export function createStorage(config: Pick<Config, 'dataDir'>): Storage {
  return new FsStorage(path.join(config.dataDir, 'objects'));
}
