import { describe, expect, it } from 'vitest';
import { aSummary } from '../../test/fixtures';
import { contentsReasons } from './contents-reasons';

const base = aSummary({ studies: 1, series: 1, instances: 38, other: 1 });

describe('contentsReasons', () => {
  it('says in words, with counts, why entries are set apart: left out first, then what was kept apart', () => {
    const reasons = contentsReasons({
      ...base,
      skipped: 3,
      skipped_reasons: { 'symbolic link': 1, 'path traversal (..)': 2 },
      entries: 45,
      duplicates: 2,
      in_project: 12,
      dicomdirs: 1,
      unreadable: 1,
      unreadable_reasons: { 'no SOP Instance UID': 1 },
    });
    expect(reasons.map((r) => [r.severity, r.text])).toEqual([
      ['warning', '2 skipped: path traversal (..)'],
      ['warning', '1 skipped: symbolic link'],
      ['warning', '1 unreadable: no SOP Instance UID'],
      ['info', '2 duplicates: the same instance more than once in this upload'],
      ['info', '12 instances were already in the project'],
      ['info', '1 DICOMDIR: the index of a CD or DVD'],
    ]);
    expect(reasons[0]?.detail).toBe('These entries were left out for safety or over a limit: not stored, so there is nothing to download.');
    expect(reasons[1]?.detail).toBe('This entry was left out for safety or over a limit: not stored, so there is nothing to download.');
    expect(reasons[2]?.detail).toBe('Kept as sent and downloadable, but not counted as an instance: the DICOM header cannot be used.');
  });

  it('counts what has no named reason on its own line', () => {
    const reasons = contentsReasons({ ...base, skipped: 3, skipped_reasons: { 'symbolic link': 1 }, unreadable: 2 });
    expect(reasons.map((r) => r.text)).toEqual(['1 skipped: symbolic link', '2 skipped', '2 unreadable']);
  });

  it('gives nothing for an upload of plain instances, or none yet', () => {
    expect(contentsReasons(base)).toEqual([]);
    expect(contentsReasons({ ...base, entries: 39, duplicates: 0, in_project: 0, dicomdirs: 0, unreadable: 0, unreadable_reasons: {}, skipped_reasons: {} })).toEqual([]);
    expect(contentsReasons(null)).toEqual([]);
  });

  it('speaks of one duplicate and one instance in the singular', () => {
    expect(contentsReasons({ ...base, duplicates: 1, in_project: 1, dicomdirs: 2 }).map((r) => r.text)).toEqual([
      '1 duplicate: the same instance more than once in this upload',
      '1 instance was already in the project',
      '2 DICOMDIRs: the index of a CD or DVD',
    ]);
  });
});

describe('a password-protected archive', () => {
  it('says what to do about it', () => {
    const reasons = contentsReasons(aSummary({ skipped: 1, skipped_reasons: { 'password-protected archives are not supported': 1 } }));
    expect(reasons.map((r) => r.text)).toContain('1 skipped: password-protected archives are not supported. Send it without a password, or unpacked.');
  });
});
