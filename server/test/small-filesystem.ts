// A small filesystem for tests of a full disk: a tmpfs of `bytes` mounted in a temp folder where
// the machine allows it (root, or a container with CAP_SYS_ADMIN). Where it does not, a plain
// folder whose free space is read as `bytes` less what it holds, so the headroom is still
// exercised end to end (only a real write failing with ENOSPC then needs another source).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FreeSpaceReader } from '../src/quota/index.js';

export interface SmallFilesystem {
  dir: string;
  /** Whether `dir` is a real tmpfs of the size asked for. */
  real: boolean;
  /** Set when not real: reads the folder as a filesystem of the size asked for. */
  freeSpace: FreeSpaceReader | undefined;
  release(): void;
}

function bytesUnder(dir: string): number {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .reduce((sum, d) => sum + fs.statSync(path.join(d.parentPath, d.name)).size, 0);
}

export function smallFilesystem(bytes: number): SmallFilesystem {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-small-fs-'));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', dir], { stdio: 'ignore' });
    return {
      dir,
      real: true,
      freeSpace: undefined,
      release: () => {
        execFileSync('umount', [dir], { stdio: 'ignore' });
        remove();
      },
    };
  } catch {
    return {
      dir,
      real: false,
      freeSpace: () => Promise.resolve({ free: Math.max(0, bytes - bytesUnder(dir)), total: bytes }),
      release: remove,
    };
  }
}
