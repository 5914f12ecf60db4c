import { describe, expect, it } from 'vitest';
import { SKIP } from '../skip-reasons.js';
import { planEntries } from './plan-entries.js';
import type { ListedEntry } from './sevenzip/sevenzip-listing.js';

const MiB = 1024 ** 2;
const LIMITS = { maxEntryBytes: 100 * MiB, maxCompressionRatio: 200, ratioFloorBytes: 16 * MiB };

function entry(rawPath: string, over: Partial<ListedEntry> = {}): ListedEntry {
  return { rawPath, type: 'file', size: 10, packedSize: 10, encrypted: false, ...over };
}

function outcomes(entries: ListedEntry[], remainingBytes = 1024 * MiB) {
  return planEntries(entries, LIMITS, remainingBytes).items.map((item) => (item.type === 'planned' ? [item.path, 'planned'] : [item.path, item.reason]));
}

describe('planEntries', () => {
  it('plans ordinary files under their normalised paths, in archive order', () => {
    const plan = planEntries([entry('b/./c.dcm'), entry('a//d.dcm')], LIMITS, MiB);
    expect(plan.items.map((i) => i.path)).toEqual(['b/c.dcm', 'a/d.dcm']);
    expect([...plan.include.keys()]).toEqual(['b/c.dcm', 'a/d.dcm']);
  });

  it('never writes links or special files', () => {
    expect(outcomes([entry('l', { type: 'symlink' }), entry('h', { type: 'hardlink' }), entry('dev', { type: 'special' })])).toEqual([
      ['l', SKIP.symlink],
      ['h', SKIP.hardLink],
      ['dev', SKIP.special],
    ]);
  });

  it('refuses names that climb out, start at the root or carry a drive letter, and shows them as listed', () => {
    expect(outcomes([entry('../x'), entry('/etc/passwd'), entry('C:/x'), entry('a\\b')])).toEqual([
      ['../x', SKIP.traversal],
      ['/etc/passwd', SKIP.absolute],
      ['C:/x', SKIP.driveLetter],
      ['a\\b', SKIP.backslash],
    ]);
  });

  it('keeps the first of two entries landing on one path, and no file where a folder is needed', () => {
    expect(outcomes([entry('a/b'), entry('a//b'), entry('a'), entry('a/b/c')])).toEqual([
      ['a/b', 'planned'],
      ['a/b', SKIP.duplicate],
      ['a', SKIP.duplicate],
      ['a/b/c', SKIP.duplicate],
    ]);
  });

  it('skips an entry over the size limit', () => {
    expect(outcomes([entry('big', { size: 101 * MiB, packedSize: 101 * MiB })])).toEqual([['big', SKIP.entryTooLarge]]);
  });

  it('skips a compression bomb past the floor, but lets small compressible files through', () => {
    expect(outcomes([entry('bomb', { size: 20 * MiB, packedSize: 1024 }), entry('small', { size: MiB, packedSize: 1 })])).toEqual([
      ['bomb', SKIP.ratio],
      ['small', 'planned'],
    ]);
  });

  it('stops planning at the remaining total, and plans unknown sizes for the write guard to police', () => {
    expect(outcomes([entry('a', { size: 6 }), entry('b', { size: 6 }), entry('c', { size: 4 }), entry('d', { size: null })], 10)).toEqual([
      ['a', 'planned'],
      ['b', SKIP.totalSize],
      ['c', 'planned'],
      ['d', 'planned'],
    ]);
  });
});
