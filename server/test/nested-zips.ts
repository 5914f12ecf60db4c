// Nested zips built by real tools, as the hardening attack built them (issue 12): `levels` layers
// of `width` zips each around `width` leaves of zeros. Only the innermost zip is compressed from
// the leaves (one file, hard-linked under `width` names); each outer layer zips hard links to the
// layer below, so even 4 × 16 with leaves of 200 MB builds in seconds.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

function sh(command: string, cwd: string): void {
  execFileSync('sh', ['-c', command], { cwd, stdio: 'ignore' });
}

const pad = (i: number) => String(i).padStart(2, '0');

/** Writes the nest under `dir` and answers the top zip's path. */
export function buildNestedZips(dir: string, { levels, width, leafBytes }: { levels: number; width: number; leafBytes: number }): string {
  const leaves = path.join(dir, 'leaves');
  fs.mkdirSync(leaves);
  sh(`head -c ${leafBytes} /dev/zero > leaf${pad(0)}.bin`, leaves);
  for (let i = 1; i < width; i += 1) fs.linkSync(path.join(leaves, `leaf${pad(0)}.bin`), path.join(leaves, `leaf${pad(i)}.bin`));
  let inner = path.join(dir, `l${levels}.zip`);
  // Deflate at its usual level shrinks zeros about 1000 times (200 MB to 200 KB).
  sh(`bsdtar --format zip -cf '${inner}' *.bin`, leaves);
  fs.rmSync(leaves, { recursive: true });
  for (let level = levels - 1; level >= 1; level -= 1) {
    const layer = path.join(dir, `layer${level}`);
    fs.mkdirSync(layer);
    for (let i = 0; i < width; i += 1) fs.linkSync(inner, path.join(layer, `l${level + 1}-${pad(i)}.zip`));
    const outer = path.join(dir, `l${level}.zip`);
    sh(`bsdtar --format zip -cf '${outer}' *.zip`, layer);
    fs.rmSync(layer, { recursive: true });
    fs.rmSync(inner);
    inner = outer;
  }
  return inner;
}

/**
 * How many archives an upload's recorded entries show were opened: the upload itself and every
 * archive some recorded path lies inside ('l2-00.zip/l3-04.zip/leaf00.bin' shows two).
 */
export function archivesShown(paths: readonly string[]): number {
  const archives = new Set<string>();
  for (const p of paths) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i += 1) if (/\.zip$/.test(parts[i - 1]!)) archives.add(parts.slice(0, i).join('/'));
  }
  return archives.size + 1;
}
