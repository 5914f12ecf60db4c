// The inputs of the many-small-files benchmark: N copies of one small real CT instance, each given
// its own SOP Instance UID by dcmtk's `dcmodify -gin` (so no two are duplicates of each other), in a
// cache folder made once and reused, plus the same files as one stored zip (`zip -0`).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Arguments per dcmodify call, well below the kernel's argument limit. */
const FILES_PER_CALL = 250;

export interface FileSet {
  dir: string;
  /** File names inside `dir`, in order. */
  names: string[];
  bytes: number;
  /** The same files as one stored zip, its entries at the top level. */
  zip: { path: string; bytes: number; sha256: string };
}

export async function prepareFileSet(cacheRoot: string, source: string, count: number): Promise<FileSet> {
  const cache = path.join(cacheRoot, `${path.basename(source, '.dcm')}-${count}`);
  const dir = path.join(cache, 'files');
  const zipPath = path.join(cache, 'files.zip');
  const done = path.join(cache, 'complete');
  const names = Array.from({ length: count }, (_, i) => `IM${String(i + 1).padStart(5, '0')}.dcm`);
  if (!(await exists(done))) {
    await rm(cache, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    for (const name of names) await copyFile(source, path.join(dir, name));
    for (let at = 0; at < names.length; at += FILES_PER_CALL) {
      await run('dcmodify', ['-nb', '-q', '-gin', ...names.slice(at, at + FILES_PER_CALL)], { cwd: dir });
    }
    // -0: stored, not deflated, as a CD export zipped for sending usually is not worth compressing.
    await run('zip', ['-0', '-q', '-X', `${zipPath}.part`, ...names], { cwd: dir, maxBuffer: 1 << 24 });
    await rename(`${zipPath}.part`, zipPath);
    await writeFile(done, '');
  }
  const listed = new Set(await readdir(dir));
  if (names.some((n) => !listed.has(n))) throw new Error(`${dir} misses files; remove ${cache} to make it again`);
  let bytes = 0;
  for (const name of names) bytes += (await stat(path.join(dir, name))).size;
  const zipBytes = await readFile(zipPath);
  return { dir, names, bytes, zip: { path: zipPath, bytes: zipBytes.length, sha256: createHash('sha256').update(zipBytes).digest('hex') } };
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/** Runs `work` on every item with at most `inFlight` at a time; the first failure stops the rest. */
export async function inPool<T>(items: readonly T[], inFlight: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        await work(items[index]!, index);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, items.length) }, lane));
}
