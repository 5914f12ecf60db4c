// Writeback while a large file is still arriving. An upload may only be answered once its bytes
// are durable (DESIGN §6), and the page cache holds a GiB of them until the final fsync: written
// out only then, they cost ~0.4–0.5 s after the last byte on this machine, the tail every large
// upload waits through (docs/performance.md, '2026-11-25: the final fsync'). A write stream made
// with these file operations starts an fdatasync on the thread pool each time another stretch of
// the file has been written, one at a time and never waited for by the writes, so the disk works
// while the network does and the final fsync finds little left to write. Linux has
// sync_file_range for exactly this; Node does not expose it, and fdatasync on a pool thread does
// the same without blocking the stream.
import fs from 'node:fs';

/** A file written this far past the last sync starts the next one. */
export const SYNC_BEHIND_BYTES = 32 * 1024 * 1024;

type WriteCallback = (err: NodeJS.ErrnoException | null, written: number) => void;

/** Operations for fs.createWriteStream's `fs` option: Node's own, counting what is written. */
export interface SyncBehindOps {
  open: typeof fs.open;
  close: typeof fs.close;
  write: (fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null, cb: WriteCallback) => void;
  writev: (fd: number, buffers: NodeJS.ArrayBufferView[], position: number | null, cb: WriteCallback) => void;
}

/**
 * What a file has had written since its last sync, across every stream that writes it (a tus
 * upload is written by one stream per PATCH, and chunks smaller than the stretch must still add
 * up to syncs). Each sync opens `file` for itself: a stream may close its own descriptor (a PATCH
 * ends) while a sync runs, and must not wait for it, nor let that number be reused under it.
 */
export class SyncBehind {
  #unsynced = 0;
  #syncing = false;

  constructor(
    private readonly file: string,
    private readonly everyBytes = SYNC_BEHIND_BYTES,
  ) {}

  /** Operations for a write stream of this file. */
  ops(): SyncBehindOps {
    const counted =
      (cb: WriteCallback): WriteCallback =>
      (err, written) => {
        if (err === null) this.#wrote(written);
        cb(err, written);
      };
    return {
      open: fs.open,
      close: fs.close,
      write: (fd, buffer, offset, length, position, cb) => fs.write(fd, buffer, offset, length, position, counted(cb)),
      writev: (fd, buffers, position, cb) => fs.writev(fd, buffers, position, counted(cb)),
    };
  }

  #wrote(bytes: number): void {
    this.#unsynced += bytes;
    if (this.#syncing || this.#unsynced < this.everyBytes) return;
    this.#syncing = true;
    this.#unsynced = 0;
    // Its outcome is not this stream's to act on: the writer's own fsync at the end decides
    // durability and reports any error the disk has (a file already moved away is one such).
    fs.open(this.file, 'r', (openErr, fd) => {
      if (openErr) {
        this.#syncing = false;
        return;
      }
      fs.fdatasync(fd, () =>
        fs.close(fd, () => {
          this.#syncing = false;
        }),
      );
    });
  }
}

/** Operations for one stream writing `file` on its own. */
export function syncBehindOps(file: string, everyBytes = SYNC_BEHIND_BYTES): SyncBehindOps {
  return new SyncBehind(file, everyBytes).ops();
}
