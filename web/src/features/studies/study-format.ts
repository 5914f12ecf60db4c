import type { TProjectStudy, TSortOrder, TStudySort } from '@portal/contract';
import { formatDicomDate } from '../../lib/format';

/** What a missing value reads, as the app's other tables show it (spec §2 'N/A'). */
export const MISSING = 'N/A';

export function count(n: number, singular: string, plural: string): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

export function studyDate(study: Pick<TProjectStudy, 'study_date'>): string {
  return formatDicomDate(study.study_date) ?? MISSING;
}

/** Names a study in words for buttons and lists: patient, description and date, or its UID. */
export function studyName(study: TProjectStudy): string {
  const parts = [study.patient_name, study.study_description, formatDicomDate(study.study_date)].filter(Boolean);
  return parts.length > 0 ? parts.join(' · ') : `Study ${study.study_instance_uid}`;
}

export function modalities(study: TProjectStudy): string {
  return study.modalities.length > 0 ? study.modalities.join(', ') : MISSING;
}

export interface StudySort {
  key: TStudySort;
  order: TSortOrder;
}

/** The server's own order without a sort (docs/api.md), made explicit so the header can show it. */
export const DEFAULT_STUDY_SORT: StudySort = { key: 'study_date', order: 'desc' };

/** A header click: the same column turns its order around; another column starts ascending. */
export function nextSort(current: StudySort, key: TStudySort): StudySort {
  if (current.key === key) return { key, order: current.order === 'asc' ? 'desc' : 'asc' };
  return { key, order: 'asc' };
}

/** Every order a phone can choose from a list (it has no column headers to click). */
export const SORT_CHOICES: ReadonlyArray<StudySort & { label: string }> = [
  { key: 'study_date', order: 'desc', label: 'Study date, newest first' },
  { key: 'study_date', order: 'asc', label: 'Study date, oldest first' },
  { key: 'patient_name', order: 'asc', label: 'Patient name, A to Z' },
  { key: 'patient_name', order: 'desc', label: 'Patient name, Z to A' },
  { key: 'study_description', order: 'asc', label: 'Description, A to Z' },
  { key: 'study_description', order: 'desc', label: 'Description, Z to A' },
  { key: 'instances', order: 'desc', label: 'Most instances first' },
  { key: 'instances', order: 'asc', label: 'Fewest instances first' },
];
