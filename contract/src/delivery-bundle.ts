// A folder's small files travel to a delivery packed into tar bundles (issue 14): one tus upload
// carries hundreds of files, so a CD export costs a few requests instead of one per file. The web
// app packs, the server reads the members in place; this module is the format both sides (and the
// benchmark) share: plain POSIX tar (ustar), with a pax record for a path ustar cannot hold.
//
// The packer writes only headers and padding: a member's bytes are the file itself (in the
// browser a Blob part of the bundle's Blob), so packing never copies a file.

/** The tus metadata key and value that mark an upload of a delivery as a bundle of its files. */
export const BUNDLE_METADATA_KEY = 'bundle';
export const BUNDLE_METADATA_VALUE = 'tar';

/** Files larger than this are sent on their own; smaller ones are packed. */
export const BUNDLE_MAX_MEMBER_BYTES = 1024 * 1024;
/** A bundle is closed once its members reach this many bytes… */
export const BUNDLE_TARGET_BYTES = 16 * 1024 * 1024;
/** …or this many files, whichever comes first. */
export const BUNDLE_MAX_MEMBERS = 1000;

export const TAR_BLOCK = 512;
/** Two zero blocks end a tar. */
export const TAR_END = new Uint8Array(2 * TAR_BLOCK);

export interface BundleMember {
  /** The path inside the folder, '/'-separated, as sent in `relativePath` for a file sent alone. */
  path: string;
  size: number;
  /** Modification time in milliseconds (a File's lastModified); 0 when unknown. */
  mtimeMs: number;
}

const encoder = new TextEncoder();

function putString(block: Uint8Array, offset: number, length: number, value: string): void {
  block.set(encoder.encode(value).subarray(0, length), offset);
}

/** An octal number field: digits, then a NUL, as ustar asks. */
function putOctal(block: Uint8Array, offset: number, length: number, value: number): void {
  putString(block, offset, length - 1, Math.trunc(value).toString(8).padStart(length - 1, '0'));
}

function ustarHeader(name: string, size: number, mtimeMs: number, typeflag: '0' | 'x'): Uint8Array {
  const block = new Uint8Array(TAR_BLOCK);
  putString(block, 0, 100, name);
  putOctal(block, 100, 8, 0o644);
  putOctal(block, 108, 8, 0);
  putOctal(block, 116, 8, 0);
  putOctal(block, 124, 12, size);
  putOctal(block, 136, 12, Math.max(0, Math.floor(mtimeMs / 1000)));
  block.fill(0x20, 148, 156); // the checksum is summed with its own field as spaces
  putString(block, 156, 1, typeflag);
  putString(block, 257, 6, 'ustar');
  putString(block, 263, 2, '00');
  let sum = 0;
  for (const byte of block) sum += byte;
  putString(block, 148, 7, sum.toString(8).padStart(6, '0') + '\0');
  return block;
}

/** A pax record is "<length> <key>=<value>\n", where the length counts itself. */
function paxRecord(key: string, value: string): Uint8Array {
  const body = encoder.encode(` ${key}=${value}\n`);
  let length = body.length + 1;
  while (String(length).length + body.length !== length) length += 1;
  return encoder.encode(`${length} ${key}=${value}\n`);
}

function needsPax(path: string): boolean {
  // ustar's name field holds 100 bytes of plain ASCII without ambiguity; anything else goes in pax.
  return encoder.encode(path).length > 100 || /[^\x20-\x7e]/.test(path);
}

/** Zero bytes after a member so the next header starts on a block. */
export function tarPadding(size: number): Uint8Array {
  return new Uint8Array((TAR_BLOCK - (size % TAR_BLOCK)) % TAR_BLOCK);
}

/** The header block(s) that go before a member's bytes. */
export function tarMemberHeader(member: BundleMember): Uint8Array {
  const header = ustarHeader(needsPax(member.path) ? 'pax-path' : member.path, member.size, member.mtimeMs, '0');
  if (!needsPax(member.path)) return header;
  const record = paxRecord('path', member.path);
  const pax = ustarHeader('PaxHeader', record.length, member.mtimeMs, 'x');
  const out = new Uint8Array(pax.length + record.length + tarPadding(record.length).length + header.length);
  out.set(pax, 0);
  out.set(record, pax.length);
  out.set(header, out.length - header.length);
  return out;
}

/** The bundle's size in bytes: what `Upload-Length` says. */
export function bundleSize(members: readonly BundleMember[]): number {
  let total = TAR_END.length;
  for (const member of members) total += tarMemberHeader(member).length + member.size + tarPadding(member.size).length;
  return total;
}

/**
 * Splits a folder's files, in the order given, into bundles and files sent alone: a file over
 * BUNDLE_MAX_MEMBER_BYTES goes alone; the rest fill bundles up to BUNDLE_TARGET_BYTES or
 * BUNDLE_MAX_MEMBERS. The same files in the same order always give the same bundles, which is
 * what lets a bundle resume after a reload.
 */
export function planBundles<T extends { size: number }>(files: readonly T[]): { bundles: T[][]; alone: T[] } {
  const bundles: T[][] = [];
  const alone: T[] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const file of files) {
    if (file.size > BUNDLE_MAX_MEMBER_BYTES) {
      alone.push(file);
      continue;
    }
    if (current.length > 0 && (bytes + file.size > BUNDLE_TARGET_BYTES || current.length >= BUNDLE_MAX_MEMBERS)) {
      bundles.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += file.size;
  }
  if (current.length > 0) bundles.push(current);
  return { bundles, alone };
}

/**
 * A bundle as a list of parts in order: each member's header, its bytes (parts of the caller's own
 * kind: Blob parts in the browser, file ranges in the command-line uploader), its padding, then
 * the end of the tar. Nothing is copied: the caller reads each part when it sends it.
 */
export function bundleParts<T>(members: readonly { member: BundleMember; parts: readonly T[] }[]): (Uint8Array | T)[] {
  const out: (Uint8Array | T)[] = [];
  for (const { member, parts } of members) out.push(tarMemberHeader(member), ...parts, tarPadding(member.size));
  out.push(TAR_END);
  return out;
}

/**
 * A folder's files as sends, in the order of their first file: planBundles' bundles and its large
 * files alone. A bundle of one file goes alone: a tar around it would buy nothing.
 */
export function planSends<T extends { size: number }>(files: readonly T[]): T[][] {
  const order = new Map(files.map((file, i) => [file, i]));
  const { bundles, alone } = planBundles(files);
  return [...bundles, ...alone.map((one) => [one])].sort((a, b) => (order.get(a[0] as T) ?? 0) - (order.get(b[0] as T) ?? 0));
}
