// The one check every extracted file passes before it is handed on.
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';

/** Only regular files that resolve inside outDir count; nothing found here is ever followed. */
export async function regularFileInside(outDir: string, rel: string): Promise<{ file: string; size: number } | null> {
  const file = path.join(outDir, rel);
  try {
    const stat = await lstat(file);
    if (!stat.isFile()) return null;
    const real = await realpath(file);
    const root = await realpath(outDir);
    if (!real.startsWith(root + path.sep)) return null;
    return { file, size: stat.size };
  } catch {
    return null;
  }
}
