// Readers for yauzl. yauzl asks for each central-directory record and each local header in small
// reads, which through plain fs.read cost a thread-pool round trip each: about a quarter of a
// second for 2,000 entries on the job's thread, before extraction can start.
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

const BLOCK = 1 << 20;

type ReadCallback = (err: Error | null, bytesRead?: number) => void;

/** For the job's thread: reads in 1 MB blocks, and answers reads inside the last block from memory. */
export class ReadAheadReader extends yauzl.RandomAccessReader {
  private block: { start: number; bytes: Buffer } | null = null;

  constructor(private readonly fd: number) {
    super();
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: ReadCallback): void {
    if (length > BLOCK) {
      fs.read(this.fd, buffer, offset, length, position, (err, bytesRead) => callback(err, bytesRead));
      return;
    }
    const cached = this.block;
    if (cached !== null && position >= cached.start && position + length <= cached.start + cached.bytes.length) {
      cached.bytes.copy(buffer, offset, position - cached.start, position - cached.start + length);
      process.nextTick(() => callback(null, length));
      return;
    }
    const bytes = Buffer.allocUnsafe(BLOCK);
    fs.read(this.fd, bytes, 0, BLOCK, position, (err, bytesRead) => {
      if (err) return callback(err);
      this.block = { start: position, bytes: bytes.subarray(0, bytesRead) };
      const copied = Math.min(length, bytesRead);
      bytes.copy(buffer, offset, 0, copied);
      callback(null, copied);
    });
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return fs.createReadStream('', { fd: this.fd, start, end: end - 1, autoClose: false });
  }

  override close(callback: (err: Error | null) => void): void {
    fs.close(this.fd, callback);
  }
}

/**
 * For the extraction worker, which may block: each read is done at once. The caller owns the
 * descriptor and closes it after the zip.
 */
export class BlockingReader extends yauzl.RandomAccessReader {
  constructor(private readonly fd: number) {
    super();
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: ReadCallback): void {
    try {
      const bytesRead = fs.readSync(this.fd, buffer, offset, length, position);
      process.nextTick(() => callback(null, bytesRead));
    } catch (error) {
      process.nextTick(() => callback(error as Error));
    }
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return fs.createReadStream('', { fd: this.fd, start, end: end - 1, autoClose: false });
  }

  override close(callback: (err: Error | null) => void): void {
    callback(null);
  }
}
