import type { TProcessingSummary, TProjectFile } from '@portal/contract';

function count(n: number, singular: string, plural: string): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

/** Reasons with their counts, most frequent first: "no SOP Instance UID" or "2 too large, 1 unsafe path". */
function reasons(counts: Record<string, number> | undefined, total: number): string {
  const entries = Object.entries(counts ?? {}).filter(([, n]) => n > 0);
  if (entries.length === 0) return '';
  entries.sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  const only = entries.length === 1 && entries[0]?.[1] === total;
  return ` (${entries.map(([reason, n]) => (only ? reason : `${n} ${reason}`)).join(', ')})`;
}

/**
 * "40 files: 38 instances, 1 DICOMDIR, 1 unreadable (no SOP Instance UID)": every entry counted
 * once, parts that are 0 left out; instances already elsewhere in the project are said apart.
 */
export function describeSummary(summary: TProcessingSummary): string {
  // DICOMDIRs are counted within other; the line names them apart.
  const c = { ...summary, other: summary.other - summary.dicomdirs };
  const parts = [
    c.instances > 0 ? count(c.instances, 'instance', 'instances') : '',
    c.duplicates > 0 ? count(c.duplicates, 'duplicate', 'duplicates') : '',
    // Issue 35: the same SOP Instance UID with another study, series or other bytes is not a copy.
    (c.conflicts ?? 0) > 0 ? count(c.conflicts, 'conflicting instance', 'conflicting instances') : '',
    c.dicomdirs > 0 ? count(c.dicomdirs, 'DICOMDIR', 'DICOMDIRs') : '',
    c.other > 0 ? count(c.other, 'other file', 'other files') : '',
    c.unreadable > 0 ? `${c.unreadable} unreadable${reasons(c.unreadable_reasons, c.unreadable)}` : '',
    c.skipped > 0 ? `${c.skipped} skipped${reasons(c.skipped_reasons, c.skipped)}` : '',
    c.in_project > 0 ? `${c.in_project} already in the project` : '',
    // Issue 37: counted apart from the sum, as the virus scan found them.
    (c.infected ?? 0) > 0 ? count(c.infected ?? 0, 'infected by a virus', 'infected by a virus') : '',
  ].filter((part) => part !== '');
  const head = count(c.entries, 'file', 'files');
  return parts.length === 0 ? head : `${head}: ${parts.join(', ')}`;
}

export function isInProgress(file: TProjectFile): boolean {
  return file.processing.status === 'pending' || file.processing.status === 'processing';
}
