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
 * Each sync opens `file` for itself: the stream may close its own descriptor (a tus PATCH ends)
 * while a sync runs, and must not wait for it, nor let that number be reused under it.
 */
export function syncBehindOps(file: string, everyBytes = SYNC_BEHIND_BYTES): SyncBehindOps {
  let unsynced = 0;
  let syncing = false;

  const wrote = (bytes: number) => {
    unsynced += bytes;
    if (syncing || unsynced < everyBytes) return;
    syncing = true;
    unsynced = 0;
    // Its outcome is not this stream's to act on: the writer's own fsync at the end decides
    // durability and reports any error the disk has (a file already moved away is one such).
    fs.open(file, 'r', (openErr, fd) => {
      if (openErr) {
        syncing = false;
        return;
      }
      fs.fdatasync(fd, () =>
        fs.close(fd, () => {
          syncing = false;
        }),
      );
    });
  };
  const counted =
    (cb: WriteCallback): WriteCallback =>
    (err, written) => {
      if (err === null) wrote(written);
      cb(err, written);
    };

  return {
    open: fs.open,
    close: fs.close,
    write: (fd, buffer, offset, length, position, cb) => fs.write(fd, buffer, offset, length, position, counted(cb)),
    writev: (fd, buffers, position, cb) => fs.writev(fd, buffers, position, counted(cb)),
  };
}
