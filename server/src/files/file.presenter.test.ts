import { describe, expect, it } from 'vitest';
import type { FileRow } from './files.repository.js';
import { presentFile } from './file.presenter.js';

const row = (summary: object): FileRow =>
  ({
    id: 1,
    file: 'old.zip',
    filesize: 10,
    project_id: 2,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    sha256: 'a'.repeat(64),
    kind: 'archive',
    duplicate_of: null,
    processing_status: 'ready',
    processing_error: null,
    processing_summary: JSON.stringify(summary),
    deid_outcome: null,
    review_state: null,
    review_reason: null,
    review_note: null,
    review_rules: null,
    replaces: null,
    replaced_by: null,
    // Migration 035's default: a row processed before a scanner was configured.
    scan_status: 'not_scanned',
    scan_signature: null,
  }) as unknown as FileRow;

describe('presentFile', () => {
  it("says a file stored before any scanner was configured was not scanned, never that it is clean", () => {
    expect(presentFile(row({ studies: 0, series: 0, instances: 0, other: 0, skipped: 0 })).scan).toEqual({ status: 'not_scanned', signature: null });
  });

  it('reads a summary recorded before its counts added up as it was counted then', () => {
    const summary = presentFile(row({ studies: 1, series: 1, instances: 3, other: 1, skipped: 2, skipped_reasons: { 'a link': 2 } })).processing.summary;
    expect(summary).toEqual({
      studies: 1,
      series: 1,
      instances: 3,
      other: 1,
      skipped: 2,
      skipped_reasons: { 'a link': 2 },
      entries: 6,
      duplicates: 0,
      conflicts: 0,
      in_project: 0,
      dicomdirs: 0,
      unreadable: 0,
    });
  });

  it('keeps a summary that has every count', () => {
    const full = { entries: 4, studies: 1, series: 1, instances: 1, duplicates: 1, conflicts: 0, in_project: 1, other: 1, dicomdirs: 1, unreadable: 1, skipped: 0 };
    expect(presentFile(row(full)).processing.summary).toEqual(full);
  });
});
