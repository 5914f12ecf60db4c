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

/** How long an upload's admission reuses a statfs reading (the readiness check always reads afresh). */
export const FREE_SPACE_READING_MS = 1000;

/** A reading kept for admissions, and the bytes admitted since it was taken (they count as written). */
interface KeptReading {
  at: number;
  space: Promise<FreeSpace | undefined>;
  admitted: number;
}

export class StorageHeadroom {
  readonly #kept = new Map<string, KeptReading>();

  constructor(
    private readonly directories: readonly string[],
    private readonly minFree: MinFree,
    private readonly read: FreeSpaceReader = readFreeSpace,
    /** Whether uploads are stored in these folders (files under DATA_DIR), or elsewhere (S3: only the work area is local). */
    private readonly uploadsStoredHere = true,
    /**
     * How long an admission reuses a reading: statfs per upload was a trip to the thread pool for
     * each of a CD export's thousands of small files. Each admitted upload's bytes are taken off
     * the kept reading, so uploads of this process never pass the headroom by it; only what others
     * write within that second is seen late. An injected reading (tests) is read every time.
     */
    private readonly keepReadingMs = read === readFreeSpace ? FREE_SPACE_READING_MS : 0,
  ) {}

  /**
   * Why new uploads are refused, in words for an operator; undefined while there is room for
   * `bytes` more (an upload's announced size) above MIN_FREE_BYTES.
   */
  async shortage(bytes = 0): Promise<string | undefined> {
    for (const directory of this.directories) {
      const space = await this.read(directory).catch(() => undefined);
      // A folder that cannot be read is the readiness check's storage question, not this one.
      const lacking = space && this.#lacking(space, bytes);
      if (lacking !== undefined) return lacking;
    }
    return undefined;
  }

  /** Refuses (507) a new upload of `bytes` that would leave less free space than MIN_FREE_BYTES. */
  async requireRoom(bytes: number): Promise<void> {
    if (this.keepReadingMs <= 0) {
      if ((await this.shortage(bytes)) !== undefined) throw new LowStorageError();
      return;
    }
    const kept = this.directories.map((directory) => this.#keptReading(directory));
    const readings = await Promise.all(kept.map(async (k) => ({ k, space: await k.space })));
    // Less what was admitted since each reading, checked and counted with no await in between.
    for (const { k, space } of readings) {
      if (space && this.#lacking({ free: space.free - k.admitted, total: space.total }, bytes) !== undefined) throw new LowStorageError();
    }
    if (this.uploadsStoredHere) for (const k of kept) k.admitted += bytes;
  }

  /** A reading at most keepReadingMs old. */
  #keptReading(directory: string): KeptReading {
    const now = performance.now();
    let kept = this.#kept.get(directory);
    if (!kept || now - kept.at > this.keepReadingMs) {
      kept = { at: now, space: this.read(directory).catch(() => undefined), admitted: 0 };
      this.#kept.set(directory, kept);
    }
    return kept;
  }

  /** Why `bytes` more do not fit above MIN_FREE_BYTES in `space`, or undefined. */
  #lacking(space: FreeSpace, bytes: number): string | undefined {
    const needed = requiredFree(this.minFree, space.total);
    if (space.free - (this.uploadsStoredHere ? bytes : 0) >= needed) return undefined;
    return `Low on storage: ${describeBytes(space.free)} free where the portal keeps its data, below MIN_FREE_BYTES (${describeBytes(needed)}); new uploads are refused until space is freed or added`;
  }
}
