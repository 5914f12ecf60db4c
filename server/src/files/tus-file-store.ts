// @tus/file-store's FileStore, writing each chunk through a 1 MiB buffer. Its own write stream
// keeps Node's 64 KiB default: every socket-sized piece then waits for the write before it, one
// thread-pool round trip each (16,384 per GiB); with room for 1 MiB, writev takes the pieces that
// queued meanwhile in one call, as the multipart path's storage does (docs/performance.md).
//
// It also says how far an upload's file is written, as each write completes (`onWritten`), so
// that its SHA-256 can be taken from the file behind the writes (tus-uploads.service.ts).
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import type stream from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileStore } from '@tus/file-store';
import { ERRORS } from '@tus/utils';

const WRITE_BUFFER_BYTES = 1024 * 1024;

type FileStoreOptions = ConstructorParameters<typeof FileStore>[0];

/** Told, after each write to an upload's file, that its bytes up to `offset` (exclusive) are there. */
export type WrittenListener = (id: string, offset: number) => void;

export class BatchedFileStore extends FileStore {
  constructor(
    options: FileStoreOptions,
    private readonly onWritten?: WrittenListener,
  ) {
    super(options);
  }

  override async write(readable: http.IncomingMessage | stream.Readable, id: string, offset: number): Promise<number> {
    // The id names a file directly in the directory, as FileStore's own resolve() insists. tus
    // answers its own error objects (status and body), not Error instances, as FileStore throws them.
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    if (id === '' || id === '.' || id === '..' || path.basename(id) !== id) throw ERRORS.FILE_NOT_FOUND;
    const out = fs.createWriteStream(path.join(this.directory, id), {
      flags: 'r+',
      start: offset,
      highWaterMark: WRITE_BUFFER_BYTES,
      ...(this.onWritten ? { fs: reportingFs((end) => this.onWritten?.(id, end)) } : {}),
    });
    try {
      await pipeline(readable, out);
    } catch {
      // As FileStore does: tus answers for it, and the offset is then the file's size.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw ERRORS.FILE_WRITE_ERROR;
    }
    return offset + out.bytesWritten;
  }
}

type WriteCallback = (error: NodeJS.ErrnoException | null, bytes: number, ...rest: unknown[]) => void;

/**
 * Node's own file calls for a write stream (its documented `fs` option), telling `written` where
 * the file's bytes end after each write completed. The stream writes one call at a time, in order,
 * from `start` on, so everything before that end is in the file too.
 */
function reportingFs(written: (end: number) => void) {
  const after = (position: number, callback: WriteCallback): WriteCallback => (error, bytes, ...rest) => {
    if (!error) written(position + bytes);
    callback(error, bytes, ...rest);
  };
  return {
    open: fs.open,
    close: fs.close,
    write: (fd: number, buffer: Buffer, offset: number, length: number, position: number, callback: WriteCallback) =>
      fs.write(fd, buffer, offset, length, position, after(position, callback)),
    writev: (fd: number, buffers: Buffer[], position: number, callback: WriteCallback) => fs.writev(fd, buffers, position, after(position, callback)),
  };
}
