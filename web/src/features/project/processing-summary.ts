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
 * The summary as issue 14 counts it, read in ONE place: `entries` and its parts are optional until
 * every server summary carries them (then this is where the fallbacks go away).
 */
export function summaryCounts(summary: TProcessingSummary) {
  if (summary.entries === undefined) return null;
  const dicomdirs = summary.dicomdirs ?? 0;
  return {
    entries: summary.entries,
    instances: summary.instances,
    duplicates: summary.duplicates ?? 0,
    inProject: summary.in_project ?? 0,
    dicomdirs,
    // DICOMDIRs are counted within other; the line names them apart.
    other: summary.other - dicomdirs,
    unreadable: summary.unreadable ?? 0,
    unreadableReasons: summary.unreadable_reasons,
    skipped: summary.skipped,
    skippedReasons: summary.skipped_reasons,
  };
}

/** The summary before issue 14: "1 study · 2 series · 10 instances", plus other and skipped entries. */
function describeOldSummary(summary: TProcessingSummary): string {
  const parts = [
    count(summary.studies, 'study', 'studies'),
    count(summary.series, 'series', 'series'),
    count(summary.instances, 'instance', 'instances'),
  ];
  if (summary.other > 0) parts.push(count(summary.other, 'other file', 'other files'));
  if (summary.skipped > 0) parts.push(`${summary.skipped} skipped`);
  return parts.join(' · ');
}

/**
 * "40 files: 38 instances, 1 DICOMDIR, 1 unreadable (no SOP Instance UID)": every entry counted
 * once, parts that are 0 left out; instances already elsewhere in the project are said apart.
 */
export function describeSummary(summary: TProcessingSummary): string {
  const c = summaryCounts(summary);
  if (c === null) return describeOldSummary(summary);
  const parts = [
    c.instances > 0 ? count(c.instances, 'instance', 'instances') : '',
    c.duplicates > 0 ? count(c.duplicates, 'duplicate', 'duplicates') : '',
    c.dicomdirs > 0 ? count(c.dicomdirs, 'DICOMDIR', 'DICOMDIRs') : '',
    c.other > 0 ? count(c.other, 'other file', 'other files') : '',
    c.unreadable > 0 ? `${c.unreadable} unreadable${reasons(c.unreadableReasons, c.unreadable)}` : '',
    c.skipped > 0 ? `${c.skipped} skipped${reasons(c.skippedReasons, c.skipped)}` : '',
    c.inProject > 0 ? `${c.inProject} already in the project` : '',
  ].filter((part) => part !== '');
  const head = count(c.entries, 'file', 'files');
  return parts.length === 0 ? head : `${head}: ${parts.join(', ')}`;
}

export function isInProgress(file: TProjectFile): boolean {
  return file.processing.status === 'pending' || file.processing.status === 'processing';
}
