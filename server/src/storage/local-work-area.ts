// Local copies of remote objects for tools that need a file path (the archive extractor, 7-Zip):
// a folder per process, capped in bytes. A copy that would pass the cap waits for others to be
// released; one larger than the whole cap fails at once, saying which setting to raise.
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';

export class WorkAreaTooSmallError extends Error {
  constructor(
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(
      `A file of ${bytes} bytes cannot be processed: the local work area for S3 objects holds at most ${maxBytes} bytes. ` +
        'Raise S3_WORK_MAX_BYTES (and make sure S3_WORK_DIR has that much free space).',
    );
    this.name = 'WorkAreaTooSmallError';
  }
}

export interface WorkFile {
  path: string;
  /** Removes the file and gives its bytes back to the cap; safe to call twice. */
  release(): Promise<void>;
}

interface Waiter {
  bytes: number;
  grant: () => void;
}

export class LocalWorkArea {
  readonly dir: string;
  #used = 0;
  readonly #waiting: Waiter[] = [];

  /** `root` may be shared by several processes on one machine: each keeps to its own subfolder. */
  constructor(
    readonly root: string,
    readonly maxBytes: number,
  ) {
    this.dir = path.join(root, String(process.pid));
  }

  get usedBytes(): number {
    return this.#used;
  }

  /**
   * Reserves `bytes` (waiting, first come first served, while the area is full) and answers a
   * fresh path to write them to. The caller writes the file; `release` removes it.
   */
  async reserve(bytes: number): Promise<WorkFile> {
    if (bytes > this.maxBytes) throw new WorkAreaTooSmallError(bytes, this.maxBytes);
    if (this.#waiting.length > 0 || this.#used + bytes > this.maxBytes) {
      await new Promise<void>((grant) => this.#waiting.push({ bytes, grant }));
    } else {
      this.#used += bytes;
    }
    let released = false;
    const file = path.join(this.dir, randomUUID());
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      this.#give(bytes);
      throw err;
    }
    return {
      path: file,
      release: async () => {
        if (released) return;
        released = true;
        try {
          await rm(file, { force: true });
        } finally {
          this.#give(bytes);
        }
      },
    };
  }

  /**
   * Removes what processes that are gone left behind (their copies died with them). Folders of
   * live processes, this one's included, are left alone.
   */
  async sweep(): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
    let removed = 0;
    for (const name of names) {
      const pid = Number(name);
      if (!/^[0-9]+$/.test(name) || pid === process.pid || isAlive(pid)) continue;
      await rm(path.join(this.root, name), { recursive: true, force: true });
      removed += 1;
    }
    return removed;
  }

  #give(bytes: number): void {
    this.#used -= bytes;
    // First come first served: a large copy at the head is not overtaken by smaller ones forever.
    while (this.#waiting.length > 0 && this.#used + this.#waiting[0]!.bytes <= this.maxBytes) {
      const next = this.#waiting.shift()!;
      this.#used += next.bytes;
      next.grant();
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, but another user's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
