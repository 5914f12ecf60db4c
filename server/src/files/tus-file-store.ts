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
import { SyncBehind } from '../storage/sync-behind.js';

const WRITE_BUFFER_BYTES = 1024 * 1024;
// Uploads whose sync state is kept between PATCHes; the oldest is forgotten past this many (an
// upload finished or abandoned leaves its entry, a few dozen bytes, until then).
const SYNC_STATES_KEPT = 256;

export class BatchedFileStore extends FileStore {
  readonly #syncs = new Map<string, SyncBehind>();

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
      fs: this.#syncBehind(id, file).ops(),
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

  override async remove(id: string): Promise<void> {
    this.#syncs.delete(id);
    await super.remove(id);
  }

  /** The upload's sync state, kept across its PATCHes so that small chunks add up to syncs. */
  #syncBehind(id: string, file: string): SyncBehind {
    let state = this.#syncs.get(id);
    if (state !== undefined) {
      // Most recently used last, so the oldest is the first key.
      this.#syncs.delete(id);
    } else {
      state = new SyncBehind(file);
      const oldest = this.#syncs.size >= SYNC_STATES_KEPT ? this.#syncs.keys().next().value : undefined;
      if (oldest !== undefined) this.#syncs.delete(oldest);
    }
    this.#syncs.set(id, state);
    return state;
  }
}
