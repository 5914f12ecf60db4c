import type { TProcessingSummary } from '@portal/contract';
import { withRemedy } from './failure-remedies';

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

/**
 * One line per named reason, most frequent first, and one for what no reason names (a server may
 * count entries it never lists), e.g. '2 skipped: path traversal (..)', '1 skipped'.
 */
function countedLines(label: string, total: number, named: Record<string, number> | undefined, detail: (n: number) => string): ContentsReason[] {
  const counts = Object.entries(named ?? {})
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const lines = counts.map(([reason, n]): ContentsReason => ({ key: `${label}:${reason}`, severity: 'warning', text: `${n} ${label}: ${withRemedy(reason)}`, detail: detail(n) }));
  const unnamed = total - counts.reduce((sum, [, n]) => sum + n, 0);
  if (unnamed > 0) lines.push({ key: label, severity: 'warning', text: `${unnamed} ${label}`, detail: detail(unnamed) });
  return lines;
}

/**
 * Why an upload's entries are not all instances, in words, with counts: skipped (left out),
 * unreadable, duplicates, already in the project, DICOMDIRs. The fields of issue 14 are optional
 * until every server fills them, so an older summary gives only its skipped reasons.
 */
export function contentsReasons(summary: TProcessingSummary | null): ContentsReason[] {
  if (!summary) return [];
  const reasons: ContentsReason[] = [
    ...countedLines(
      'skipped',
      summary.skipped,
      summary.skipped_reasons,
      (n) => `${plural(n, 'This entry was', 'These entries were')} left out for safety or over a limit: not stored, so there is nothing to download.`,
    ),
    ...countedLines(
      'unreadable',
      summary.unreadable,
      summary.unreadable_reasons,
      (n) => `Kept as sent and downloadable, but not counted as ${plural(n, 'an instance', 'instances')}: the DICOM header cannot be used.`,
    ),
  ];

  // Kept, and accounted for apart from the instances: each said once, when there are any.
  const duplicates = summary.duplicates;
  const conflicts = summary.conflicts ?? 0;
  const inProject = summary.in_project;
  const dicomdirs = summary.dicomdirs;
  const keptApart: [number, Omit<ContentsReason, 'severity'>][] = [
    [
      duplicates,
      {
        key: 'duplicates',
        text: `${duplicates} ${plural(duplicates, 'duplicate', 'duplicates')}: the same instance more than once in this upload`,
        detail: 'Same SOP Instance UID as another entry of this upload: kept, and the instance is counted once.',
      },
    ],
    [
      conflicts,
      {
        key: 'conflicts',
        text: `${conflicts} conflicting ${plural(conflicts, 'instance', 'instances')}: a SOP Instance UID used again for another study, series or other bytes`,
        detail: 'Not a copy: two different images claim to be the same instance. Kept as sent and not counted as instances; the reviewers see it among the arrival rules.',
      },
    ],
    [
      inProject,
      {
        key: 'in_project',
        text: `${inProject} ${plural(inProject, 'instance was', 'instances were')} already in the project`,
        detail: "Also in another upload of this project: counted here, and once in the project's studies.",
      },
    ],
    [
      dicomdirs,
      {
        key: 'dicomdirs',
        text: `${dicomdirs} ${plural(dicomdirs, 'DICOMDIR', 'DICOMDIRs')}: the index of a CD or DVD`,
        detail: 'It lists the files of the disc and holds no image: kept, and counted among the other files.',
      },
    ],
  ];
  // A conflict is kept too, but it is a fault in what was sent: said as a warning.
  for (const [n, reason] of keptApart) if (n > 0) reasons.push({ ...reason, severity: reason.key === 'conflicts' ? 'warning' : 'info' });
  return reasons;
}
