// DATA_DIR holds medical images and a database of password and token hashes: it is readable by the
// service user only (issue 12, item 12). Everything this process creates is private through its
// umask, and what an earlier version, a restore or an operator left with looser modes is tightened
// at start.
import type fs from 'node:fs';
import { chmod, lstat, mkdir, opendir } from 'node:fs/promises';
import path from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
/** Removes every permission for group and others from what the process creates from now on. */
const PRIVATE_UMASK = 0o077;

export interface TightenedPath {
  /** Relative to DATA_DIR ('.' for DATA_DIR itself). */
  path: string;
  from: string;
  to: string;
}

/**
 * Sets the process umask to 077, creates DATA_DIR as 0700 when missing, and gives every folder
 * under it 0700 and every file 0600 where group or others had any permission. Symbolic links are
 * not followed: what they point to is not DATA_DIR's to change. Answers what was changed, for the
 * log.
 */
export async function makeDataDirPrivate(dataDir: string): Promise<TightenedPath[]> {
  process.umask(PRIVATE_UMASK);
  await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const changed: TightenedPath[] = [];
  await tighten(dataDir, dataDir, changed);
  return changed;
}

async function tighten(root: string, target: string, changed: TightenedPath[]): Promise<void> {
  let info: fs.Stats;
  try {
    info = await lstat(target);
  } catch (err) {
    // Removed meanwhile (a temp file of an upload finishing as the server starts): nothing to protect.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (info.isSymbolicLink()) return;
  const wanted = info.isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE;
  const mode = info.mode & 0o7777;
  if ((mode & 0o077) !== 0 || (info.isDirectory() && (mode & 0o700) !== 0o700)) {
    await chmod(target, wanted);
    changed.push({ path: path.relative(root, target) || '.', from: octal(mode), to: octal(wanted) });
  }
  if (!info.isDirectory()) return;
  for await (const entry of await opendir(target)) await tighten(root, path.join(target, entry.name), changed);
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}
