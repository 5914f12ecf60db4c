import type { TDeidentificationReport, TFileReview, TProcessingSummary, TProjectFile, TRuleOutcome } from '@portal/contract';
import { ZDeidentificationReport, ZProcessingStatus, ZRejectReason, ZReviewState, ZScanStatus } from '@portal/contract';
import type { FileRow } from './files.repository.js';

/** A file as the API shows it: no storage key, no internal columns. */
export function presentFile(row: FileRow): TProjectFile {
  return {
    id: row.id,
    file: row.file,
    filesize: Number(row.filesize),
    studypetitionid: row.project_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    sha256: row.sha256,
    kind: row.kind === 'dicom' || row.kind === 'folder' ? row.kind : 'archive',
    duplicate_of: row.duplicate_of === null ? null : Number(row.duplicate_of),
    processing: {
      status: ZProcessingStatus.parse(row.processing_status),
      error: row.processing_error,
      summary: row.processing_summary === null ? null : presentSummary(JSON.parse(row.processing_summary) as StoredSummary),
    },
    deidentification: presentDeidentification(row.deid_outcome),
    scan: { status: ZScanStatus.parse(row.scan_status), signature: row.scan_signature },
    review: presentReview(row),
  };
}

/** The file's review (issue 35) as its columns hold it; the outcomes were checked when written. */
export function presentReview(row: Pick<FileRow, 'review_state' | 'review_reason' | 'review_note' | 'review_rules' | 'replaced_by' | 'replaces'>): TFileReview {
  const reason = ZRejectReason.safeParse(row.review_reason);
  return {
    state: row.review_state === null ? null : ZReviewState.parse(row.review_state),
    reason: reason.success ? { code: reason.data, text: row.review_note ?? '' } : null,
    replaced_by: row.replaced_by === null ? null : Number(row.replaced_by),
    replaces: row.replaces === null ? null : Number(row.replaces),
    rules: row.review_rules === null ? [] : (JSON.parse(row.review_rules) as TRuleOutcome[]),
  };
}

/** The outcome as processing stored it (snake_case already); checked here so a malformed one fails loudly, not in a browser. */
export function presentDeidentification(stored: string | null): TDeidentificationReport | null {
  return stored === null ? null : ZDeidentificationReport.parse(JSON.parse(stored));
}

/** Summaries recorded before issue 14 lack the counts that add up; they are read as they were counted then. */
type StoredSummary = Omit<TProcessingSummary, 'entries' | 'duplicates' | 'conflicts' | 'in_project' | 'dicomdirs' | 'unreadable'> &
  Partial<Pick<TProcessingSummary, 'entries' | 'duplicates' | 'conflicts' | 'in_project' | 'dicomdirs' | 'unreadable'>>;

function presentSummary(stored: StoredSummary): TProcessingSummary {
  return {
    ...stored,
    entries: stored.entries ?? stored.instances + stored.other + stored.skipped,
    duplicates: stored.duplicates ?? 0,
    conflicts: stored.conflicts ?? 0,
    in_project: stored.in_project ?? 0,
    dicomdirs: stored.dicomdirs ?? 0,
    unreadable: stored.unreadable ?? 0,
  };
}
