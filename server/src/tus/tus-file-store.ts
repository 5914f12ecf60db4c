// @tus/file-store's FileStore, writing each PATCH's bytes around the page cache in 1 MiB blocks
// (storage/direct-write-stream.ts) rather than through its own write stream, whose 64 KiB buffer
// made every socket-sized piece wait for the write before it (docs/performance.md, "tus `PATCH`
// bodies stay Node streams").
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import type stream from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { FileStore } from '@tus/file-store';
import { ERRORS } from '@tus/utils';
import { isStorageFull } from '../quota/index.js';
import { closed, DirectWriteStream } from '../storage/direct-write-stream.js';

/** A full disk, told apart from other write failures (tus.routes.ts answers it 507 with words). */
export const DISK_FULL = { status_code: 507, body: 'No space left on the disk\n' } as const;

const openFd = promisify(fs.open);
const closeFd = promisify(fs.close);

export class DirectFileStore extends FileStore {
  override async write(readable: http.IncomingMessage | stream.Readable, id: string, offset: number): Promise<number> {
    // The id names a file directly in the directory, as FileStore's own resolve() insists. tus
    // answers its own error objects (status and body), not Error instances, as FileStore throws them.
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    if (id === '' || id === '.' || id === '..' || path.basename(id) !== id) throw ERRORS.FILE_NOT_FOUND;
    const file = path.join(this.directory, id);
    let fd: number;
    try {
      fd = await openFd(file, 'r+');
    } catch {
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw ERRORS.FILE_WRITE_ERROR;
    }
    const out = new DirectWriteStream(file, { fd, start: offset });
    try {
      await pipeline(readable, out);
    } catch (err) {
      // As FileStore does: tus answers for it, and the offset is then the file's size (which holds
      // every byte that arrived: the stream writes what it staged even when cut short).
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw isStorageFull(err) ? DISK_FULL : ERRORS.FILE_WRITE_ERROR;
    } finally {
      await closed(out);
      await closeFd(fd).catch(() => undefined);
    }
    return offset + out.bytesWritten;
  }
}
