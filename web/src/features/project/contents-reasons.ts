import type { TProcessingSummary } from '@portal/contract';

/** One line of "why": a count of entries that are not plain instances, and what it means for the user. */
export interface ContentsReason {
  key: string;
  /** 'warning': something was left out or cannot be read; 'info': kept and accounted for. */
  severity: 'warning' | 'info';
  text: string;
  detail: string;
}

function plural(n: number, singular: string, many: string): string {
  return n === 1 ? singular : many;
}

function byCount(reasons: Record<string, number> | undefined): [string, number][] {
  return Object.entries(reasons ?? {})
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/**
 * Why an upload's entries are not all instances, in words, with counts: skipped (left out),
 * unreadable, duplicates, already in the project, DICOMDIRs. The fields of issue 14 are optional
 * until every server fills them, so an older summary gives only its skipped reasons.
 */
export function contentsReasons(summary: TProcessingSummary | null): ContentsReason[] {
  if (!summary) return [];
  const reasons: ContentsReason[] = [];

  const skippedReasons = byCount(summary.skipped_reasons);
  for (const [reason, n] of skippedReasons) {
    reasons.push({
      key: `skipped:${reason}`,
      severity: 'warning',
      text: `${n} skipped: ${reason}`,
      detail: `${plural(n, 'This entry was', 'These entries were')} left out for safety or over a limit: not stored, so there is nothing to download.`,
    });
  }
  const unnamedSkipped = summary.skipped - skippedReasons.reduce((sum, [, n]) => sum + n, 0);
  if (unnamedSkipped > 0) {
    reasons.push({ key: 'skipped', severity: 'warning', text: `${unnamedSkipped} skipped`, detail: 'Left out for safety or over a limit: not stored.' });
  }

  const unreadableReasons = byCount(summary.unreadable_reasons);
  for (const [reason, n] of unreadableReasons) {
    reasons.push({
      key: `unreadable:${reason}`,
      severity: 'warning',
      text: `${n} unreadable: ${reason}`,
      detail: `Kept as sent and downloadable, but not counted as ${plural(n, 'an instance', 'instances')}: the DICOM header cannot be used.`,
    });
  }
  const unnamedUnreadable = (summary.unreadable ?? 0) - unreadableReasons.reduce((sum, [, n]) => sum + n, 0);
  if (unnamedUnreadable > 0) {
    reasons.push({
      key: 'unreadable',
      severity: 'warning',
      text: `${unnamedUnreadable} unreadable`,
      detail: 'Kept as sent and downloadable, but not counted as instances: the DICOM header cannot be used.',
    });
  }

  const duplicates = summary.duplicates ?? 0;
  if (duplicates > 0) {
    reasons.push({
      key: 'duplicates',
      severity: 'info',
      text: `${duplicates} ${plural(duplicates, 'duplicate', 'duplicates')}: the same instance more than once in this upload`,
      detail: 'Same SOP Instance UID as another entry of this upload: kept, and the instance is counted once.',
    });
  }
  const inProject = summary.in_project ?? 0;
  if (inProject > 0) {
    reasons.push({
      key: 'in_project',
      severity: 'info',
      text: `${inProject} ${plural(inProject, 'instance was', 'instances were')} already in the project`,
      detail: "Also in another upload of this project: counted here, and once in the project's studies.",
    });
  }
  const dicomdirs = summary.dicomdirs ?? 0;
  if (dicomdirs > 0) {
    reasons.push({
      key: 'dicomdirs',
      severity: 'info',
      text: `${dicomdirs} ${plural(dicomdirs, 'DICOMDIR', 'DICOMDIRs')}: the index of a CD or DVD`,
      detail: 'It lists the files of the disc and holds no image: kept, and counted among the other files.',
    });
  }
  return reasons;
}
