// The native paths (zip and tar), on the extraction worker: each planned entry's bytes are read at
// the offset its format locates (a zip's local header, a tar's header), inflated by Node's zlib when
// deflated, checked against their CRC-32 (zip) and size, hashed, and written under the already
// normalised name, or left where they lie in the upload. The same write guard as 7-Zip's applies to
// every byte, and a guard stop ends the run the same way.
import { closeSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { DETECT_BYTES, detectKind, isArchiveKind } from '../../detect/detect-kind.js';
import { EntryAnalyzer, ANALYSIS_HEAD_BYTES, analyzeHead, type EntryAnalysis } from '../../entry-analysis.js';
import type { ExtractResult, NativeMember, NativeRequest, SettledFile, StopReason } from '../sevenzip/sevenzip-protocol.js';

/** Where a member's bytes lie and how they are stored, as its format's headers say. */
export interface Located {
  dataStart: number;
  /** Bytes stored in the archive (the member's size when stored as is). */
  packedSize: number;
  /** 0 stored, 8 deflated. */
  method: 0 | 8;
  /** The CRC-32 to check the bytes against; null when the format keeps none (tar). */
  crc32: number | null;
}

/** Where a member is; null when its header is unusable (the member is then skipped as corrupt). */
export type Locate<M> = (member: M) => Promise<Located | null>;

const CHUNK = 1 << 20;
/** The least a read buffer grows by. */
const GROW_STEP = 64 * 1024;
/** zlib's least chunk size. */
const MIN_INFLATE_CHUNK = 64;
/**
 * Deflated entries up to this size (DICOM instances, mostly) are inflated in one call: no stream
 * and no buffer per chunk, which held twice the memory and took longer. Larger ones stream.
 */
const INFLATE_AT_ONCE = 16 * 1024 * 1024;

class GuardStop extends Error {
  constructor(readonly reason: StopReason) {
    super(`write guard: ${reason}`);
  }
}

function* storedBytes(fd: number, buffer: Buffer, start: number, length: number): Generator<Buffer> {
  for (let position = start, left = length; left > 0; ) {
    const read = readSync(fd, buffer, 0, Math.min(left, buffer.length), position);
    if (read === 0) throw new Error('unexpected end of archive');
    yield buffer.subarray(0, read);
    position += read;
    left -= read;
  }
}

function* copiedBytes(fd: number, start: number, length: number): Generator<Buffer> {
  // zlib keeps the chunks it is given until it has read them: each needs its own buffer.
  for (const chunk of storedBytes(fd, Buffer.allocUnsafe(Math.min(length, CHUNK)), start, length)) yield Buffer.from(chunk);
}

async function* inflatedBytes(fd: number, start: number, length: number): AsyncGenerator<Buffer> {
  const inflate = zlib.createInflateRaw({ chunkSize: 256 * 1024 });
  const source = Readable.from(copiedBytes(fd, start, length), { objectMode: false });
  source.on('error', (error) => inflate.destroy(error));
  source.pipe(inflate);
  try {
    for await (const chunk of inflate) yield chunk as Buffer;
  } finally {
    source.destroy();
    inflate.destroy();
  }
}

function readExactly(fd: number, buffer: Buffer, start: number, length: number): Buffer {
  for (let at = 0; at < length; ) {
    const read = readSync(fd, buffer, at, length - at, start + at);
    if (read === 0) throw new Error('unexpected end of archive');
    at += read;
  }
  return buffer.subarray(0, length);
}

/**
 * Our side failed (disk full, permissions), not the archive: the run rejects so the job is retried,
 * instead of the entry being skipped as corrupt.
 */
class OutputError extends Error {}

function writeAll(fd: number, chunk: Buffer): void {
  try {
    for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at);
  } catch (error) {
    throw new OutputError(`writing an extracted entry failed: ${(error as Error).message}`, { cause: error });
  }
}

/** Codes that mean this name cannot be created next to another (a file where a folder is named). */
const NAME_CONFLICTS = new Set(['EEXIST', 'ENOTDIR', 'EISDIR']);

/** What a member's bytes proved to be, read once: their hash, and their first bytes for analysis. */
interface ReadBack {
  sha256: string;
  head: Buffer;
}

export class NativeExtractor<M extends NativeMember> {
  private readonly result: ExtractResult = { exitCode: 0, errors: [], completed: [], stop: null, crash: null, written: 0 };
  private readonly analyzer: EntryAnalyzer;
  private readonly madeDirs = new Set<string>();
  /**
   * Grown to what the members need, up to CHUNK: a window of 2,000 tiny entries is one run, and
   * 2 MB of buffers per run, each waiting for a collection, kept the worker's memory high.
   */
  private buffer = Buffer.alloc(0);
  private packed = Buffer.alloc(0);

  constructor(
    private readonly request: NativeRequest<M>,
    private readonly locate: Locate<M>,
    private readonly archiveFd: number,
    private readonly post: (file: SettledFile) => void,
  ) {
    this.analyzer = new EntryAnalyzer(request.outDir, request.maxDicomHeaderBytes);
  }

  async run(): Promise<ExtractResult> {
    try {
      for (const member of this.request.members) {
        if (!(await this.extract(member))) break;
      }
    } catch (error) {
      if (error instanceof OutputError) throw error;
      this.result.crash = error instanceof Error ? error.message : String(error);
    }
    return this.result;
  }

  /**
   * False when the guard stopped the run at this member. A stored member of the upload that is not
   * an archive is only read (it stays where it lies); anything else is written out as it is read.
   */
  private async extract(member: M): Promise<boolean> {
    let located: Located | null;
    try {
      located = await this.locate(member);
    } catch {
      located = null;
    }
    if (located === null) return this.settle(member, null);
    const { dataStart } = located;
    const inPlace = this.request.inPlace && located.method === 0 && member.size > 0 && !this.isArchiveAt(dataStart, member);
    const out = inPlace ? null : this.create(member);
    if (!inPlace && out === null) return this.settle(member, null);
    try {
      const read = await this.read(member, located, out);
      if (read === 'stopped') return false;
      if (read === null) return this.settle(member, null);
      if (out !== null) {
        // Checked and analysed like any extracted file, from the head kept while writing it.
        const analysis = this.analyzer.analyzeWritten(member.rel, read.head, out, member.size);
        return this.settle(member, { sha256: read.sha256, analysis, inPlaceAt: null });
      }
      // Bytes left in place must be understood here: the job's thread has no file to read.
      let analysis: EntryAnalysis;
      try {
        analysis = analyzeHead(read.head, { fd: this.archiveFd, base: dataStart, size: member.size }, this.request.maxDicomHeaderBytes);
      } catch {
        return this.settle(member, null);
      }
      return this.settle(member, { sha256: read.sha256, analysis, inPlaceAt: dataStart });
    } finally {
      if (out !== null) closeSync(out);
    }
  }

  /** A nested archive must become a file of its own to be opened; anything else can stay put. */
  private isArchiveAt(dataStart: number, member: M): boolean {
    const length = Math.min(member.size, DETECT_BYTES);
    return isArchiveKind(detectKind(readExactly(this.archiveFd, this.bufferOf(length), dataStart, length)));
  }

  /** The read buffer, at least `length` bytes long (or CHUNK, reads being made in chunks). */
  private bufferOf(length: number): Buffer {
    const wanted = Math.min(Math.max(length, GROW_STEP), CHUNK);
    if (this.buffer.length < wanted) this.buffer = Buffer.allocUnsafe(Math.min(Math.max(wanted, this.buffer.length * 2), CHUNK));
    return this.buffer;
  }

  /**
   * Passes the member's bytes through the guard, CRC-32 and SHA-256, writing them to `out` when
   * there is one. Null when they fail their CRC-32 or stated size, or cannot be read.
   */
  private async read(member: M, located: Located, out: number | null): Promise<ReadBack | null | 'stopped'> {
    const hash = createHash('sha256');
    const head = Buffer.allocUnsafe(Math.min(member.size, ANALYSIS_HEAD_BYTES));
    let crc = 0;
    let bytes = 0;
    try {
      for await (const chunk of this.bytesOf(member, located)) {
        // Bytes left in place take no room: only written ones count against the budget.
        this.check(member, bytes + chunk.length, out === null ? 0 : chunk.length);
        if (bytes < head.length) chunk.copy(head, bytes, 0, head.length - bytes);
        if (located.crc32 !== null) crc = zlib.crc32(chunk, crc);
        hash.update(chunk);
        if (out !== null) {
          writeAll(out, chunk);
          this.result.written += chunk.length;
        }
        bytes += chunk.length;
      }
    } catch (error) {
      if (error instanceof OutputError) throw error;
      if (error instanceof GuardStop) {
        this.result.stop = { reason: error.reason, path: member.rel };
        return 'stopped';
      }
      return null;
    }
    const crcAgrees = located.crc32 === null || crc >>> 0 === located.crc32 >>> 0;
    return bytes === member.size && crcAgrees ? { sha256: hash.digest('hex'), head } : null;
  }

  private check(member: M, after: number, length: number): void {
    const { guard } = this.request;
    if (guard.maxEntryBytes !== null && after > guard.maxEntryBytes) throw new GuardStop('entry-too-large');
    if (after > member.size) throw new GuardStop('header-lied');
    if (this.result.written + length > guard.budgetBytes) throw new GuardStop(guard.budgetReason);
  }

  private bytesOf(member: M, { dataStart, packedSize, method }: Located): Iterable<Buffer> | AsyncIterable<Buffer> {
    if (method === 0) return storedBytes(this.archiveFd, this.bufferOf(packedSize), dataStart, packedSize);
    if (member.size > INFLATE_AT_ONCE || packedSize > INFLATE_AT_ONCE) return inflatedBytes(this.archiveFd, dataStart, packedSize);
    return [this.inflateAtOnce(member, dataStart, packedSize)];
  }

  private inflateAtOnce(member: M, dataStart: number, packedSize: number): Buffer {
    if (this.packed.length < packedSize) this.packed = Buffer.allocUnsafe(Math.max(packedSize, this.packed.length * 2, GROW_STEP));
    const packed = readExactly(this.archiveFd, this.packed, dataStart, packedSize);
    try {
      // One byte more than stated: enough to tell a lying header without inflating all it hides.
      // Output chunks sized to the entry: the default 16 KiB per call, times thousands of tiny
      // entries waiting for a collection, held tens of MB on this thread.
      return zlib.inflateRawSync(packed, { maxOutputLength: member.size + 1, chunkSize: Math.min(Math.max(member.size + 1, MIN_INFLATE_CHUNK), GROW_STEP) });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new GuardStop('header-lied');
      throw error;
    }
  }

  /** The member's new output file; null if it cannot be made. */
  private create(member: M): number | null {
    try {
      const file = path.join(this.request.outDir, member.rel);
      const dir = path.dirname(file);
      if (!this.madeDirs.has(dir)) {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        this.madeDirs.add(dir);
      }
      // 'wx+': never opens anything already there, link or not; readable back for a long header.
      // Owner-only, as storage keeps it.
      return openSync(file, 'wx+', 0o600);
    } catch (error) {
      if (NAME_CONFLICTS.has((error as NodeJS.ErrnoException).code ?? '')) return null;
      throw new OutputError(`creating an extracted entry failed: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Reports the member as finished: kept with what was learnt of it, or failed (null). */
  private settle(member: M, kept: { sha256: string; analysis: EntryAnalysis | null; inPlaceAt: number | null } | null): true {
    this.result.completed.push(member.rel);
    this.post({ rel: member.rel, sha256: kept?.sha256 ?? null, failed: kept === null, analysis: kept?.analysis ?? null, inPlaceAt: kept?.inPlaceAt ?? null });
    return true;
  }
}

/** Runs the extractor over the request's archive, opened once for the run. */
export async function extractNative<M extends NativeMember>(
  request: NativeRequest<M>,
  post: (file: SettledFile) => void,
  locateIn: (archiveFd: number) => Promise<{ locate: Locate<M>; close: () => void }>,
): Promise<ExtractResult> {
  const archiveFd = openSync(request.archive, 'r');
  try {
    const { locate, close } = await locateIn(archiveFd);
    try {
      return await new NativeExtractor(request, locate, archiveFd, post).run();
    } finally {
      close();
    }
  } finally {
    closeSync(archiveFd);
  }
}
