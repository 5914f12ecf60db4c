// A folder's files as a delivery holds them: every regular file below it by its path inside the
// folder ('/' between folders), in path order, packed as the web app packs a picked folder.
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { planSends } from '@portal/contract/delivery-bundle';
import { STATE_FILE_NAME } from './state-file.js';

export interface FolderFile {
  /** The path inside the folder, as the delivery names it. */
  path: string;
  absolute: string;
  size: number;
  mtimeMs: number;
}

export interface FolderSend {
  files: FolderFile[];
  bundle: boolean;
  key: string;
}

export async function listFolder(folder: string): Promise<{ files: FolderFile[]; skipped: string[] }> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const files: FolderFile[] = [];
  const skipped: string[] = [];
  for (const entry of entries) {
    const absolute = path.join(entry.parentPath, entry.name);
    const relative = path.relative(folder, absolute).split(path.sep).join('/');
    if (entry.name === STATE_FILE_NAME || entry.name.startsWith(`${STATE_FILE_NAME}.`)) continue;
    // A link could lead out of the folder (or loop); a delivery holds the folder's own files.
    if (entry.isSymbolicLink()) skipped.push(relative);
    if (!entry.isFile()) continue;
    const { size, mtimeMs } = await stat(absolute);
    files.push({ path: relative, absolute, size, mtimeMs: Math.floor(mtimeMs) });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, skipped };
}

/** A short stable name for a list of files: the same files, unchanged, are the same send on a rerun. */
export function signatureOf(files: readonly FolderFile[]): string {
  const text = JSON.stringify(files.map((f) => [f.path, f.size, f.mtimeMs]));
  return `${files.length}-${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
}

/** The sends of a folder as the web app makes them (planSends): the same files always make the same bundles. */
export function planFolder(files: readonly FolderFile[]): FolderSend[] {
  return planSends(files).map((group) => ({ files: group, bundle: group.length > 1, key: `${group.length > 1 ? 'bundle' : 'file'}:${signatureOf(group)}` }));
}
