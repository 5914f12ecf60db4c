// Walks a tar's 512-byte headers on the job's thread, for the native tar path: ustar, GNU long
// names and links ('L', 'K') and pax extended headers (path, linkpath, size) are read with node-tar's
// own header and pax parsers, each entry's data is stepped over, and its offset is all the
// extraction needs. A tar is read header by header, so a window of its entries can be planned
// without the whole listing in memory, as a zip's directory is. Anything this walk does not read
// with certainty (a bad header checksum, sparse files, multi-volume parts, vendor typeflags)
// answers null, and the tar goes to 7-Zip as before.
import { open, type FileHandle } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';
import { Header, type HeaderData } from 'tar/header';
import { Pax } from 'tar/pax';
import type { ListedEntry, ListedType } from '../sevenzip/sevenzip-listing.js';

/** Where a tar entry's bytes are: `size` bytes from here, stored as they are. */
export interface TarLocation {
  dataStart: number;
}

export type TarListedEntry = ListedEntry & { tar: TarLocation };

const BLOCK = 512;
/**
 * Read a block of this much at a time: 64 headers and data of tiny entries per read, and little
 * read for nothing when entries are large and their headers far apart.
 */
const READ_AHEAD = 64 * 1024;
/** Headers parsed between two turns of the event loop. */
const LIST_SLICE = 250;
/** Longer extended headers (pax, GNU long names) are not names: the tar goes to 7-Zip. */
const MAX_META_BYTES = 1024 * 1024;

/** The walk met something it does not read with certainty: 7-Zip reads it instead. */
class NotPlainTar extends Error {}

/** Typeflags of entries, by what the safety rules make of them ('5' and 'D' are folders). */
const ENTRY_TYPES: ReadonlyMap<string, ListedType | 'directory'> = new Map([
  ['0', 'file'],
  ['', 'file'],
  ['7', 'file'],
  ['1', 'hardlink'],
  ['2', 'symlink'],
  ['3', 'special'],
  ['4', 'special'],
  ['6', 'special'],
  ['5', 'directory'],
  ['D', 'directory'],
]);

/** Reads a tar in blocks of READ_AHEAD, answering reads inside the last block from memory. */
class BlockReader {
  private block = Buffer.alloc(READ_AHEAD);
  private start = 0;
  private length = 0;

  constructor(private readonly file: FileHandle) {}

  /** `length` bytes at `position`, or fewer at the end of the file. Valid until the next read. */
  async read(position: number, length: number): Promise<Buffer> {
    if (position < this.start || position + length > this.start + this.length) {
      if (this.block.length < length) this.block = Buffer.alloc(length);
      const { bytesRead } = await this.file.read(this.block, 0, Math.max(length, READ_AHEAD), position);
      this.start = position;
      this.length = bytesRead;
    }
    const at = position - this.start;
    return this.block.subarray(at, Math.min(at + length, this.length));
  }
}

const isZeroBlock = (block: Buffer): boolean => block.every((byte) => byte === 0);
const padded = (size: number): number => Math.ceil(size / BLOCK) * BLOCK;

/** A walk's end: the archive's end marker, or the end of the file before it (a cut tar). */
interface WalkState {
  truncated: boolean;
}

/**
 * Files and links in archive order, folders left out, names as stored; throws NotPlainTar. A tar
 * that ends before its end marker (a zero block) sets `state.truncated`; an entry whose data the
 * cut reaches is still listed, and its read fails as corrupt data, as 7-Zip reports it.
 */
async function* records(file: FileHandle, state: WalkState): AsyncGenerator<TarListedEntry> {
  const reader = new BlockReader(file);
  // What extended headers say of the next entry (pax 'x', GNU 'L' and 'K').
  let pending: HeaderData | undefined;
  let parsed = 0;
  for (let position = 0; ; ) {
    if (++parsed % LIST_SLICE === 0) await setImmediate();
    const block = await reader.read(position, BLOCK);
    if (block.length < BLOCK) {
      state.truncated = true;
      return;
    }
    // One zero block ends the archive (GNU tar and bsdtar write two, and read one as the end).
    if (isZeroBlock(block)) return;
    const header = new Header(block, 0, pending);
    const flag = String.fromCharCode(block[156]!).replace('\0', '');
    if (!header.cksumValid || header.size === undefined || header.path === undefined) throw new NotPlainTar();
    const size = header.size;
    const dataStart = position + BLOCK;
    position = dataStart + padded(size);
    if (flag === 'x' || flag === 'g' || flag === 'L' || flag === 'K') {
      if (size > MAX_META_BYTES) throw new NotPlainTar();
      const body = await reader.read(dataStart, size);
      if (body.length < size) {
        state.truncated = true;
        return;
      }
      const text = body.toString('utf8');
      // Sparse files need their map applied: only 7-Zip does that.
      if (text.includes('GNU.sparse.')) throw new NotPlainTar();
      if (flag === 'x') pending = Pax.parse(text, pending, false);
      else if (flag === 'L') pending = { ...pending, path: text.replace(/\0.*/s, '') };
      else if (flag === 'K') pending = { ...pending, linkpath: text.replace(/\0.*/s, '') };
      // A global header that renames or resizes every entry after it is for 7-Zip to read.
      else if (/^\d+ (path|linkpath|size)=/m.test(text)) throw new NotPlainTar();
      continue;
    }
    // A tape's volume label describes no entry.
    if (flag === 'V') continue;
    const type = ENTRY_TYPES.get(flag);
    if (type === undefined) throw new NotPlainTar();
    // node-tar puts a ustar prefix before a pax path too; the pax path is the whole name.
    const rawPath = pending?.path ?? header.path;
    pending = undefined;
    // Old tars mark a folder as a file whose name ends in '/'.
    if (type === 'directory' || rawPath.endsWith('/')) continue;
    yield { rawPath, type, size, packedSize: size, encrypted: false, tar: { dataStart } };
  }
}

/**
 * Whether this tar can take the native path, how many entries it names (those up to `cap` listed,
 * the rest only counted) and whether it ends early. Null when it needs 7-Zip. Nothing is kept: the
 * entries are read again, as they are needed, by `tarHeaderEntries`.
 */
export async function scanTarHeaders(archive: string, cap: number): Promise<{ listed: number; overflow: number; truncated: boolean } | null> {
  const file = await open(archive, 'r');
  const state: WalkState = { truncated: false };
  try {
    let count = 0;
    for await (const _entry of records(file, state)) count += 1;
    return { listed: Math.min(count, cap), overflow: Math.max(count - cap, 0), truncated: state.truncated };
  } catch (error) {
    if (error instanceof NotPlainTar) return null;
    throw error;
  } finally {
    await file.close();
  }
}

/**
 * The entries a scan counted as listed, read again one by one (the archive is the stored upload or
 * a file of this job's, so it has not changed). Stop early with `return()` to close the file.
 */
export async function* tarHeaderEntries(archive: string, cap: number): AsyncGenerator<TarListedEntry> {
  const file = await open(archive, 'r');
  try {
    let count = 0;
    for await (const entry of records(file, { truncated: false })) {
      if (++count > cap) return;
      yield entry;
    }
  } finally {
    await file.close();
  }
}

/**
 * The whole listing at once, in one walk: the entries up to `cap` (the rest only counted), or null
 * when it needs 7-Zip. For a delivery's bundle, read as it arrives (and for tests); an upload's
 * layer scans first and reads entries as it needs them, so a large listing is never held.
 */
export async function readTarHeaders(archive: string, cap: number): Promise<{ entries: TarListedEntry[]; overflow: number; truncated: boolean } | null> {
  const file = await open(archive, 'r');
  const state: WalkState = { truncated: false };
  try {
    const entries: TarListedEntry[] = [];
    let overflow = 0;
    for await (const entry of records(file, state)) {
      if (entries.length < cap) entries.push(entry);
      else overflow += 1;
    }
    return { entries, overflow, truncated: state.truncated };
  } catch (error) {
    if (error instanceof NotPlainTar) return null;
    throw error;
  } finally {
    await file.close();
  }
}
