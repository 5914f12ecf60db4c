// @tus/file-store's FileStore, writing each chunk through a 1 MiB buffer. Its own write stream
// keeps Node's 64 KiB default: every socket-sized piece then waits for the write before it, one
// thread-pool round trip each (16,384 per GiB); with room for 1 MiB, writev takes the pieces that
// queued meanwhile in one call, as the multipart path's storage does (docs/performance.md).
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import type stream from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileStore } from '@tus/file-store';
import { ERRORS } from '@tus/utils';
import { syncBehindOps } from '../storage/sync-behind.js';

const WRITE_BUFFER_BYTES = 1024 * 1024;

export class BatchedFileStore extends FileStore {
  override async write(readable: http.IncomingMessage | stream.Readable, id: string, offset: number): Promise<number> {
    // The id names a file directly in the directory, as FileStore's own resolve() insists. tus
    // answers its own error objects (status and body), not Error instances, as FileStore throws them.
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    if (id === '' || id === '.' || id === '..' || path.basename(id) !== id) throw ERRORS.FILE_NOT_FOUND;
    const file = path.join(this.directory, id);
    const out = fs.createWriteStream(file, {
      flags: 'r+',
      start: offset,
      highWaterMark: WRITE_BUFFER_BYTES,
      // Synced behind its writes: the upload's final fsync then has little left to write.
      fs: syncBehindOps(file),
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
