// Reads a zip's central directory with yauzl, for the native zip path: plain zips (stored or
// deflated, unencrypted) are then extracted with Node's own zlib and CRC-32 instead of 7-Zip in
// WebAssembly, about twice as fast. Anything else is left to 7-Zip, which reads every variant.
import fs from 'node:fs';
import { setImmediate } from 'node:timers/promises';
import { promisify } from 'node:util';
import yauzl, { type Entry } from 'yauzl';
import { ReadAheadReader } from './zip-readers.js';
import type { ListedEntry, ListedType } from '../sevenzip/sevenzip-listing.js';

/** Where an entry's bytes are and how to check them. */
export interface ZipLocation {
  localHeaderOffset: number;
  compressedSize: number;
  /** 0 stored, 8 deflated: the only methods this path reads. */
  method: 0 | 8;
  crc32: number;
}

export type ZipListedEntry = ListedEntry & { zip: ZipLocation };

/** Directory records parsed between two turns of the event loop. */
const LIST_SLICE = 250;
const STORED = 0;
const DEFLATED = 8;
const MADE_ON_UNIX = 3;
const DOS_DIRECTORY = 0x10;

function unixType(entry: Entry): number | null {
  if (entry.versionMadeBy >> 8 !== MADE_ON_UNIX) return null;
  const type = (entry.externalFileAttributes >>> 16) & 0o170000;
  return type === 0 ? null : type;
}

function typeOf(entry: Entry, name: string): ListedType {
  const type = unixType(entry);
  if (type === 0o120000) return 'symlink';
  if (name.endsWith('/') || type === 0o040000 || (entry.externalFileAttributes & DOS_DIRECTORY) !== 0) return 'directory';
  if (type !== null && type !== 0o100000) return 'special';
  return 'file';
}

/** yauzl's answer when the zip needs 7-Zip: encryption, or a method other than stored or deflated. */
class NotPlainZip extends Error {}

/** The zip's directory opened with yauzl, or null when it cannot be read. */
async function openDirectory(archive: string): Promise<yauzl.ZipFile | null> {
  // The reader owns the descriptor once yauzl has opened the zip (zip.close() closes it).
  const fd = await promisify(fs.open)(archive, 'r');
  try {
    const { size } = await promisify(fs.fstat)(fd);
    // Names are decoded below without yauzl's check, which would reject the whole archive for one
    // '../' name where we skip just that entry.
    return await yauzl.fromRandomAccessReaderPromise(new ReadAheadReader(fd), size, { lazyEntries: true, autoClose: false, decodeStrings: false });
  } catch {
    await promisify(fs.close)(fd);
    return null;
  }
}

/** Files and links in archive order, directories left out, names as stored; throws NotPlainZip. */
async function* records(zip: yauzl.ZipFile): AsyncGenerator<ZipListedEntry> {
  let read = 0;
  for await (const entry of zip.eachEntry()) {
    // Records inside the read-ahead block are parsed without a turn of the event loop: 100,000
    // of them held the API for seconds. Give it a turn now and then.
    if (++read % LIST_SLICE === 0) await setImmediate();
    if (entry.isEncrypted()) throw new NotPlainZip();
    // Backslashes are kept (strict): a name with one is skipped, as it is when 7-Zip lists it.
    const rawPath = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
    const type = typeOf(entry, rawPath);
    if (type === 'directory') continue;
    const method = entry.compressionMethod;
    if (method !== STORED && method !== DEFLATED) throw new NotPlainZip();
    yield {
      rawPath,
      type,
      size: entry.uncompressedSize,
      packedSize: entry.compressedSize,
      encrypted: false,
      zip: { localHeaderOffset: entry.relativeOffsetOfLocalHeader, compressedSize: entry.compressedSize, method, crc32: entry.crc32 },
    };
  }
}

/**
 * Whether this zip can take the native path, and how many entries its directory names: those up
 * to `cap` are listed, the rest only counted. Null when it needs 7-Zip: unreadable directory,
 * encryption, or a compression method other than stored or deflated. Nothing is kept: a directory
 * of 100,000 entries held as objects took ~50 MB of the job's heap, so the entries themselves are
 * read again, as they are needed, by `zipDirectoryEntries`.
 */
export async function scanZipDirectory(archive: string, cap: number): Promise<{ listed: number; overflow: number } | null> {
  const zip = await openDirectory(archive);
  if (zip === null) return null;
  try {
    let count = 0;
    for await (const _entry of records(zip)) count += 1;
    return { listed: Math.min(count, cap), overflow: Math.max(count - cap, 0) };
  } catch {
    return null;
  } finally {
    zip.close();
  }
}

/**
 * The entries a scan counted as listed, read again one by one (the archive is the stored upload
 * or a file of this job's, so it has not changed). Stop early with `return()` to close the file.
 */
export async function* zipDirectoryEntries(archive: string, cap: number): AsyncGenerator<ZipListedEntry> {
  const zip = await openDirectory(archive);
  if (zip === null) throw new Error('the zip directory could not be read a second time');
  try {
    let count = 0;
    for await (const entry of records(zip)) {
      if (++count > cap) return;
      yield entry;
    }
  } finally {
    zip.close();
  }
}

/** The whole listing at once (for tests): the entries up to `cap`, or null when it needs 7-Zip. */
export async function readZipDirectory(archive: string, cap: number): Promise<{ entries: ZipListedEntry[]; overflow: number } | null> {
  const scan = await scanZipDirectory(archive, cap);
  if (scan === null) return null;
  const entries: ZipListedEntry[] = [];
  for await (const entry of zipDirectoryEntries(archive, cap)) entries.push(entry);
  return { entries, overflow: scan.overflow };
}
