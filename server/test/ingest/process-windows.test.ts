// A zip of thousands of entries is extracted a window at a time (issue 12): entries still come in
// archive order, a nested archive found in a later window is opened where it lies, and a walk that
// stops early (budget) does not leave the rest of the layer extracting.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect, sh, tempDir } from './helpers.js';

/** `count` small entries written by bsdtar from an mtree description; nested zips at `nestedAt`. */
async function manyEntries(count: number, nestedAt: readonly number[]): Promise<string> {
  const dir = await tempDir();
  fs.writeFileSync(path.join(dir, 'entry.txt'), 'small\n');
  fs.writeFileSync(path.join(dir, 'inner.txt'), 'inside\n');
  await sh('bsdtar --format zip -cf inner.zip inner.txt', dir);
  const name = (i: number) => `e${String(i).padStart(5, '0')}${nestedAt.includes(i) ? '.zip' : '.txt'}`;
  const lines = Array.from({ length: count }, (_, i) => `${name(i)} type=file mode=0644 contents=${nestedAt.includes(i) ? 'inner.zip' : 'entry.txt'}`);
  fs.writeFileSync(path.join(dir, 'spec.mtree'), `#mtree\n${lines.join('\n')}\n`);
  await sh('bsdtar --format zip -cf many.zip @spec.mtree', dir);
  return path.join(dir, 'many.zip');
}

describe('a zip of many entries, window by window', () => {
  it('hands every entry on in archive order, opening nested archives in any window', async () => {
    const nestedAt = [10, 2500, 4400];
    const { result, entries } = await collect(await manyEntries(4500, nestedAt), 'many.zip');
    expect(result.status).toBe('ready');
    const expected = Array.from({ length: 4500 }, (_, i) => {
      const name = `e${String(i).padStart(5, '0')}`;
      return nestedAt.includes(i) ? `${name}.zip/inner.txt` : `${name}.txt`;
    });
    expect(entries.map((e) => e.path)).toEqual(expected);
    expect(entries.every((e) => e.kind === 'other' && e.existed)).toBe(true);
    expect(result.summary).toMatchObject({ other: 4500, skipped: 0 });
  });

  it('stops at a nested archive in a later window when the budget is spent, without waiting for the rest', async () => {
    const { result, entries } = await collect(await manyEntries(4500, [10, 2500]), 'many.zip', { limits: { maxArchives: 2 } });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/more than 2 archives/);
    expect(entries).toHaveLength(2500);
    expect(entries[10]!.path).toBe('e00010.zip/inner.txt');
  });
});
