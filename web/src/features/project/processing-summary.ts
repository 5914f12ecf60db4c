import type { TProcessingSummary, TProjectFile } from '@portal/contract';

function count(n: number, singular: string, plural: string): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

/** "1 study · 2 series · 10 instances", plus other and skipped entries when there are any. */
export function describeSummary(summary: TProcessingSummary): string {
  const parts = [
    count(summary.studies, 'study', 'studies'),
    count(summary.series, 'series', 'series'),
    count(summary.instances, 'instance', 'instances'),
  ];
  if (summary.other > 0) parts.push(count(summary.other, 'other file', 'other files'));
  if (summary.skipped > 0) parts.push(`${summary.skipped} skipped`);
  return parts.join(' · ');
}

export function isInProgress(file: TProjectFile): boolean {
  return file.processing.status === 'pending' || file.processing.status === 'processing';
}
