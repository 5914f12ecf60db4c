// A zip of many entries is extracted a window at a time (issue 12): entries still come in
// archive order, a nested archive found in a later window is opened where it lies, and a walk that
// stops early (budget) does not leave the rest of the layer extracting. A 7z's plan is cut into the
// same windows, one 7-Zip run serving them all.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect, sh, tempDir } from './helpers.js';

/**
 * Windows of 200 entries (2,000 by default): 450 entries make three windows, as 4,500 would with
 * the default, in a tenth of the time.
 */
const WINDOW = { entries: 200, bytes: 512 * 1024 ** 2 };

/**
 * `count` small entries written by bsdtar from an mtree description; nested zips at `nestedAt`, and
 * `extra` mtree lines after them.
 */
async function manyEntries(count: number, nestedAt: readonly number[], format: 'zip' | '7zip' = 'zip', extra: readonly string[] = []): Promise<string> {
  const dir = await tempDir();
  fs.writeFileSync(path.join(dir, 'entry.txt'), 'small\n');
  fs.writeFileSync(path.join(dir, 'inner.txt'), 'inside\n');
  await sh('bsdtar --format zip -cf inner.zip inner.txt', dir);
  const name = (i: number) => `e${String(i).padStart(5, '0')}${nestedAt.includes(i) ? '.zip' : '.txt'}`;
  const lines = Array.from({ length: count }, (_, i) => `${name(i)} type=file mode=0644 contents=${nestedAt.includes(i) ? 'inner.zip' : 'entry.txt'}`);
  fs.writeFileSync(path.join(dir, 'spec.mtree'), `#mtree\n${[...lines, ...extra].join('\n')}\n`);
  const file = format === 'zip' ? 'many.zip' : 'many.7z';
  await sh(`bsdtar --format ${format} -cf ${file} @spec.mtree`, dir);
  return path.join(dir, file);
}

const names = (count: number, nestedAt: readonly number[]): string[] =>
  Array.from({ length: count }, (_, i) => {
    const name = `e${String(i).padStart(5, '0')}`;
    return nestedAt.includes(i) ? `${name}.zip/inner.txt` : `${name}.txt`;
  });

describe('a zip of many entries, window by window', () => {
  it('hands every entry on in archive order, opening nested archives in any window', async () => {
    const nestedAt = [10, 250, 440];
    const { result, entries } = await collect(await manyEntries(450, nestedAt), 'many.zip', { window: WINDOW });
    expect(result.status).toBe('ready');
    const expected = Array.from({ length: 450 }, (_, i) => {
      const name = `e${String(i).padStart(5, '0')}`;
      return nestedAt.includes(i) ? `${name}.zip/inner.txt` : `${name}.txt`;
    });
    expect(entries.map((e) => e.path)).toEqual(expected);
    expect(entries.every((e) => e.kind === 'other' && e.existed)).toBe(true);
    expect(result.summary).toMatchObject({ other: 450, skipped: 0 });
  });

  it('stops at a nested archive in a later window when the budget is spent, without waiting for the rest', async () => {
    const { result, entries } = await collect(await manyEntries(450, [10, 250]), 'many.zip', { window: WINDOW, limits: { maxArchives: 2 } });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/more than 2 archives/);
    expect(entries).toHaveLength(250);
    expect(entries[10]!.path).toBe('e00010.zip/inner.txt');
  });
});

describe('a 7z of many entries, planned window by window for one 7-Zip run', () => {
  it('hands every entry on in archive order, opening nested archives in any window', async () => {
    const nestedAt = [10, 250, 440];
    const { result, entries } = await collect(await manyEntries(450, nestedAt, '7zip'), 'many.7z', { window: WINDOW });
    expect(result.status).toBe('ready');
    expect(entries.map((e) => e.path)).toEqual(names(450, nestedAt));
    expect(entries.every((e) => e.kind === 'other' && e.existed)).toBe(true);
    expect(result.summary).toMatchObject({ other: 450, skipped: 0 });
  });

  it('extracts the planned entries of every window by name when some are skipped, each skip with its reason', async () => {
    // The link is not planned: 7-Zip is then given the names to extract.
    const { result, entries } = await collect(await manyEntries(450, [300], '7zip', ['zlink type=link mode=0777 link=e00000.txt']), 'many.7z', { window: WINDOW });
    expect(result.status).toBe('ready');
    const kept = entries.filter((e) => e.kind === 'other');
    expect(kept.map((e) => e.path)).toEqual(names(450, [300]));
    expect(kept.every((e) => e.existed)).toBe(true);
    expect(entries.at(-1)).toMatchObject({ path: 'zlink', kind: 'skipped' });
    expect(result.summary).toMatchObject({ other: 450, skipped: 1, skipped_reasons: { 'symbolic link': 1 } });
  });

  it('skips what is left of every later window once the total size is spent, for that reason', async () => {
    const { result, entries } = await collect(await manyEntries(450, [], '7zip'), 'many.7z', { window: WINDOW, limits: { maxTotalBytes: 300 * 6 } });
    const kept = entries.filter((e) => e.kind === 'other');
    expect(kept.map((e) => e.path)).toEqual(names(300, []));
    expect(entries.slice(300).every((e) => e.kind === 'skipped')).toBe(true);
    expect(result.summary).toMatchObject({ other: 300, skipped: 150, skipped_reasons: { 'total size limit reached': 150 } });
  });
});
