// A tar bundle of a delivery's files (contract/src/delivery-bundle.ts), read once its last byte
// landed: its headers walked with the native tar walk of ingest/ (the same reader as an uploaded
// tar's), every member checked as a file sent alone with that path would be, then each member's
// SHA-256 taken in one pass over the bundle (and the bundle's own, unless it was taken as it arrived). A bundle is all or nothing: any refusal names the
// member and nothing of the bundle is kept (the caller removes it).
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { AppError, unprocessable } from '../errors/app-error.js';
import { readTarHeaders } from '../ingest/index.js';
import { checkRelativePath, pathTaken, printable } from './delivery-paths.js';

/** A bundle naming more files than this is refused: the web app's bundles hold at most 1,000. */
export const MAX_BUNDLE_MEMBERS = 50_000;
/** Bytes hashed per read in the pass over the bundle. */
const HASH_READ = 1024 * 1024;

export interface BundleMember {
  relativePath: string;
  /** Where its bytes start in the bundle. */
  offset: number;
  size: number;
  sha256: string;
}

const KINDS: Record<string, string> = { hardlink: 'a hard link', symlink: 'a symbolic link', special: 'a device, pipe or other special file' };

/**
 * The members of the bundle at `file` (`size` bytes), by the order they are in, and the bundle's
 * own SHA-256 (`sha256` when the caller took it as the bytes arrived); 422 naming what is wrong.
 */
export async function readBundle(file: string, size: number, sha256?: string): Promise<{ members: BundleMember[]; sha256: string }> {
  const listing = await readTarHeaders(file, MAX_BUNDLE_MEMBERS);
  if (listing === null) {
    throw unprocessable('The bundle is not a tar file the portal reads (POSIX tar, with files only); pack the files again and send the bundle again');
  }
  if (listing.overflow > 0) throw unprocessable(`A bundle may hold at most ${MAX_BUNDLE_MEMBERS} files; send the folder in more, smaller bundles`);
  const members: Omit<BundleMember, 'sha256'>[] = [];
  const paths = new PathSet();
  for (const entry of listing.entries) {
    if (entry.type !== 'file') {
      throw unprocessable(`The bundle holds "${printable(entry.rawPath)}", which is ${KINDS[entry.type] ?? 'not a file'}; a bundle may hold only files`);
    }
    const relativePath = checkRelativePath(entry.rawPath);
    // A tar header always states its member's size.
    const memberSize = entry.size ?? 0;
    if (entry.tar.dataStart + memberSize > size) throw cutShort(relativePath);
    // Refused as the same file sent alone is (tus creation), naming it so the rest can go again without it.
    if (memberSize === 0) throw new AppError(415, `The file "${relativePath}" is empty; leave it out and send the others again`);
    if (!paths.add(relativePath)) throw pathTaken(relativePath);
    members.push({ relativePath, offset: entry.tar.dataStart, size: memberSize });
  }
  // Bytes cut off after the last member (its padding, the end marker): the tar is not whole.
  if (listing.truncated) throw cutShort(members.at(-1)?.relativePath);
  if (members.length === 0) throw unprocessable('The bundle holds no files; send the files of the folder in it');
  return hashMembers(file, members, sha256);
}

function cutShort(lastPath: string | undefined): AppError {
  return unprocessable(
    `The bundle ends before ${lastPath === undefined ? 'its first file' : `the end of "${lastPath}"`}, so none of its files were kept; pack the files again and send the bundle again`,
  );
}

/**
 * Each member's SHA-256 and the whole bundle's, in one sequential read of it. The whole is hashed
 * only when it is not `known`: on the thread that receives every upload, a second hash of every
 * byte cost as much as the members' own.
 */
async function hashMembers(file: string, members: Omit<BundleMember, 'sha256'>[], known: string | undefined): Promise<{ members: BundleMember[]; sha256: string }> {
  const handle = await open(file, 'r');
  try {
    const whole = known === undefined ? createHash('sha256') : null;
    const hashes = members.map(() => createHash('sha256'));
    const buffer = Buffer.alloc(HASH_READ);
    // Members are in the order of their offsets and do not overlap: `next` is the first one not yet hashed whole.
    let next = 0;
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(buffer, 0, HASH_READ, position);
      if (bytesRead === 0) break;
      const end = position + bytesRead;
      whole?.update(buffer.subarray(0, bytesRead));
      for (let i = next; i < members.length && members[i]!.offset < end; i += 1) {
        const member = members[i]!;
        const from = Math.max(member.offset, position);
        const to = Math.min(member.offset + member.size, end);
        if (to > from) hashes[i]!.update(buffer.subarray(from - position, to - position));
        if (member.offset + member.size <= end) next = i + 1;
      }
      position = end;
    }
    return { members: members.map((m, i) => ({ ...m, sha256: hashes[i]!.digest('hex') })), sha256: known ?? whole!.digest('hex') };
  } finally {
    await handle.close();
  }
}

/**
 * Paths of a delivery's files as a folder holds them: a path is refused when it is taken, when it
 * is a folder of a path already there, or when one of its folders is a file already there (a file
 * and a folder cannot share a name in a zip). The same rule as DeliveriesRepository.pathTaken.
 */
export class PathSet {
  readonly #files = new Set<string>();
  readonly #folders = new Set<string>();

  /** Adds `path`, or answers false when it clashes with a path already added. */
  add(path: string): boolean {
    if (this.#files.has(path) || this.#folders.has(path)) return false;
    const parts = path.split('/');
    const folders = parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
    if (folders.some((folder) => this.#files.has(folder))) return false;
    this.#files.add(path);
    for (const folder of folders) this.#folders.add(folder);
    return true;
  }
}
