import { describe, expect, it } from 'vitest';
import { aSummary } from '../../test/fixtures';
import { describeSummary } from './processing-summary';

const base = aSummary({ studies: 1, series: 1 });

describe('describeSummary', () => {
  it("writes the issue's example: every entry counted once, parts that are 0 left out", () => {
    expect(
      describeSummary({ ...base, entries: 40, instances: 38, other: 1, dicomdirs: 1, unreadable: 1, unreadable_reasons: { 'no SOP Instance UID': 1 }, duplicates: 0 }),
    ).toBe('40 files: 38 instances, 1 DICOMDIR, 1 unreadable (no SOP Instance UID)');
  });

  it('names duplicates, other files, skipped entries with their reasons and instances already in the project', () => {
    expect(
      describeSummary({
        ...base,
        entries: 20,
        instances: 12,
        duplicates: 2,
        other: 3,
        dicomdirs: 0,
        unreadable: 0,
        skipped: 3,
        skipped_reasons: { 'unsafe path': 1, 'too large': 2 },
        in_project: 12,
      }),
    ).toBe('20 files: 12 instances, 2 duplicates, 3 other files, 3 skipped (2 too large, 1 unsafe path), 12 already in the project');
  });

  it('says how many files the virus scan found infected, and nothing when none was', () => {
    expect(describeSummary({ ...base, entries: 3, instances: 2, other: 1, infected: 1 })).toBe('3 files: 2 instances, 1 other file, 1 infected by a virus');
    expect(describeSummary({ ...base, entries: 1, instances: 1, infected: 0 })).toBe('1 file: 1 instance');
  });

  it('counts one file in the singular and says nothing more when it held nothing', () => {
    expect(describeSummary({ ...base, entries: 1, instances: 1 })).toBe('1 file: 1 instance');
    expect(describeSummary({ ...base, studies: 0, series: 0, entries: 0 })).toBe('0 files');
  });
});
