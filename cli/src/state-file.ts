// The state file beside the data (`.portal-upload-state.json` in the folder that holds PATH): the
// delivery a folder goes into and the tus address of each upload begun, so that a run stopped by
// Ctrl-C, a lost link or `kill -9` is resumed by running the same command again. It is written
// whole to a temporary file, synced and renamed over the old one: a kill leaves the old or the new,
// never half of one. It holds no secret: an upload address is useless without the token.
import { open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { CliError, EXIT } from './exit-codes.js';

export const STATE_FILE_NAME = '.portal-upload-state.json';

export interface SendState {
  /** The upload's tus address. */
  url: string;
  /** Every byte arrived (and, for a file alone, the project file it became). */
  done?: boolean;
  fileId?: number | null;
}

export interface PathState {
  deliveryId?: number;
  /** By the send's key: its members (paths, sizes, modification times) and how they were made. */
  sends: Record<string, SendState>;
}

interface StateShape {
  version: 1;
  paths: Record<string, PathState>;
}

export function stateFileFor(target: string): string {
  return path.join(path.dirname(path.resolve(target)), STATE_FILE_NAME);
}

/** One PATH's entry in its state file; every change is on disk before the call returns. */
export class PathProgress {
  private constructor(
    private readonly file: string,
    private readonly key: string,
    private shape: StateShape,
  ) {}

  static async load(file: string, key: string): Promise<PathProgress> {
    let shape: StateShape = { version: 1, paths: {} };
    try {
      const read = JSON.parse(await readFile(file, 'utf8')) as Partial<StateShape>;
      if (read.version === 1 && read.paths && typeof read.paths === 'object') shape = { version: 1, paths: read.paths };
    } catch {
      // None yet, or unreadable: start afresh (the server keeps what it has; only a resume is lost).
    }
    return new PathProgress(file, key, shape);
  }

  get entry(): PathState {
    return this.shape.paths[this.key] ?? { sends: {} };
  }

  async update(change: (entry: PathState) => PathState): Promise<void> {
    // Another run for another PATH of the same folder may have written meanwhile: merge into the newest.
    const fresh = await PathProgress.load(this.file, this.key);
    this.shape = { version: 1, paths: { ...fresh.shape.paths, [this.key]: change(this.entry) } };
    await this.write();
  }

  /** Drops this PATH's entry once it is sent; the file goes with its last entry. */
  async finish(): Promise<void> {
    const fresh = await PathProgress.load(this.file, this.key);
    const { [this.key]: _done, ...rest } = fresh.shape.paths;
    this.shape = { version: 1, paths: rest };
    if (Object.keys(rest).length === 0) await rm(this.file, { force: true });
    else await this.write();
  }

  private async write(): Promise<void> {
    const temporary = `${this.file}.${process.pid}.tmp`;
    const handle = await open(temporary, 'w', 0o600).catch(() => {
      throw new CliError(EXIT.usage, `The state file ${this.file} cannot be written, and without it an interrupted upload could not be resumed: give a writable place with --state-file.`);
    });
    try {
      await handle.writeFile(JSON.stringify(this.shape, null, 1));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, this.file);
  }
}
