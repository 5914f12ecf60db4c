// New uploads stop while the filesystem under DATA_DIR (and the S3 work area) has less free space
// than MIN_FREE_BYTES, so that what is left serves sign-ins, sessions, audit rows and deletes: a
// full disk must not take down every company (issue 31).
import { statfs } from 'node:fs/promises';
import type { MinFree } from '../config/config.js';
import { describeBytes } from './bytes.js';
import { LowStorageError } from './storage-errors.js';

export interface FreeSpace {
  /** Bytes an unprivileged process may still write. */
  free: number;
  total: number;
}

/** How free space is read: statfs by default; tests inject their own reading. */
export type FreeSpaceReader = (directory: string) => Promise<FreeSpace>;

export const readFreeSpace: FreeSpaceReader = async (directory) => {
  const stats = await statfs(directory);
  return { free: stats.bavail * stats.bsize, total: stats.blocks * stats.bsize };
};

/** The free space `minFree` asks for on a filesystem of `total` bytes. */
export function requiredFree(minFree: MinFree, total: number): number {
  const share = minFree.percent === undefined ? Infinity : Math.ceil((total * minFree.percent) / 100);
  return Math.min(minFree.bytes ?? Infinity, share);
}

export class StorageHeadroom {
  constructor(
    private readonly directories: readonly string[],
    private readonly minFree: MinFree,
    private readonly read: FreeSpaceReader = readFreeSpace,
    /** Whether uploads are stored in these folders (files under DATA_DIR), or elsewhere (S3: only the work area is local). */
    private readonly uploadsStoredHere = true,
  ) {}

  /**
   * Why new uploads are refused, in words for an operator; undefined while there is room for
   * `bytes` more (an upload's announced size) above MIN_FREE_BYTES.
   */
  async shortage(bytes = 0): Promise<string | undefined> {
    for (const directory of this.directories) {
      const space = await this.read(directory).catch(() => undefined);
      // A folder that cannot be read is the readiness check's storage question, not this one.
      if (!space) continue;
      const needed = requiredFree(this.minFree, space.total);
      if (space.free - (this.uploadsStoredHere ? bytes : 0) < needed) {
        return `Low on storage: ${describeBytes(space.free)} free where the portal keeps its data, below MIN_FREE_BYTES (${describeBytes(needed)}); new uploads are refused until space is freed or added`;
      }
    }
    return undefined;
  }

  /** Refuses (507) a new upload of `bytes` that would leave less free space than MIN_FREE_BYTES. */
  async requireRoom(bytes: number): Promise<void> {
    if ((await this.shortage(bytes)) !== undefined) throw new LowStorageError();
  }
}
