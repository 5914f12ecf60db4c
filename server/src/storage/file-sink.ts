// The one stream an upload's bytes pass on their way into a file: it shows each chunk to the
// put's meter (size limit, first bytes, SHA-256) and writes what the meter took with writev, where
// an upload used to pass a Transform for the meter and then fs.WriteStream. Every 64 KiB piece of a
// request paid each stream's write, push and callbacks (docs/performance.md, 'Upload').
import fs from 'node:fs';
import { Writable } from 'node:stream';
import type { BodyMeter } from './storage.js';

// Room for ~16 socket-sized pieces: while the disk takes one writev, the pieces that arrive
// meanwhile queue for the next (the 16 KiB default made reading and writing take turns).
const HIGH_WATER_MARK = 1024 * 1024;

/** Writes into an open descriptor from its start; the caller owns the descriptor and closes it once the sink has closed. */
export class FileSink extends Writable {
  #bytesWritten = 0;
  #writing = false;
  #closeWhenWritten: (() => void) | undefined;

  constructor(
    private readonly fd: number,
    private readonly meter: BodyMeter | undefined,
  ) {
    super({ highWaterMark: HIGH_WATER_MARK });
  }

  get bytesWritten(): number {
    return this.#bytesWritten;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.#take([chunk], 0, done);
  }

  override _writev(chunks: { chunk: Buffer }[], done: (error?: Error | null) => void): void {
    this.#take(
      chunks.map((c) => c.chunk),
      0,
      done,
    );
  }

  override _final(done: (error?: Error | null) => void): void {
    try {
      this.meter?.end();
    } catch (err) {
      return done(asError(err));
    }
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    // The put failed here first (the disk, or the meter's refusal): the body closing after this is its doing.
    if (error !== null) this.meter?.abandon();
    // The descriptor must stay open until no write of ours is left on the thread pool.
    if (this.#writing) this.#closeWhenWritten = () => done(error);
    else done(error);
  }

  /**
   * Shows chunks to the meter from `from` on, until one must wait (the hash is behind); the chunks
   * taken so far are written meanwhile, and the rest follow once both are done.
   */
  #take(chunks: Buffer[], from: number, done: (error?: Error | null) => void): void {
    let next = from;
    let wait: Promise<void> | undefined;
    try {
      if (this.meter === undefined) next = chunks.length;
      else while (next < chunks.length && wait === undefined) wait = this.meter.take(chunks[next++]!);
    } catch (err) {
      // Chunks the meter took before it refused are not written: the put fails and stores nothing anyway.
      return done(asError(err));
    }
    let pending = wait === undefined ? 1 : 2;
    let failed = false;
    const settle = (err?: unknown) => {
      if (failed) return;
      if (err !== undefined && err !== null) {
        failed = true;
        return done(asError(err));
      }
      pending -= 1;
      if (pending > 0) return;
      if (next < chunks.length) this.#take(chunks, next, done);
      else done();
    };
    this.#writeAll(next - from === chunks.length ? chunks : chunks.slice(from, next), settle);
    wait?.then(() => settle(), settle);
  }

  #writeAll(buffers: Buffer[], done: (err?: unknown) => void): void {
    this.#writing = true;
    fs.writev(this.fd, buffers, this.#bytesWritten, (err, written) => {
      this.#writing = false;
      if (this.#closeWhenWritten) return this.#closeWhenWritten();
      if (err) return done(err);
      this.#bytesWritten += written;
      const total = buffers.reduce((sum, b) => sum + b.length, 0);
      if (written === total) return done();
      // A short write (rare for a regular file): the rest goes again from where it stopped.
      this.#writeAll(rest(buffers, written), done);
    });
  }
}

function rest(buffers: Buffer[], skip: number): Buffer[] {
  const left: Buffer[] = [];
  for (const buffer of buffers) {
    if (skip >= buffer.length) skip -= buffer.length;
    else {
      left.push(skip > 0 ? buffer.subarray(skip) : buffer);
      skip = 0;
    }
  }
  return left;
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
