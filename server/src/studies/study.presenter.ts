import type { TProjectStudy } from '@portal/contract';
import { formatPersonName } from './person-name.js';
import type { StudyRow, StudySeriesRow, StudySourceRow } from './studies.repository.js';

/** A page of studies with their series and sources, in the page's order. */
export function presentStudies(rows: StudyRow[], series: StudySeriesRow[], sources: StudySourceRow[]): TProjectStudy[] {
  const seriesOf = groupBy(series, (s) => s.study_instance_uid);
  const sourcesOf = groupBy(sources, (s) => s.study_instance_uid);
  return rows.map((row) => {
    const own = seriesOf.get(row.study_instance_uid) ?? [];
    const modalities = [...new Set(own.map((s) => s.modality).filter((m): m is string => m !== null))].sort();
    return {
      study_instance_uid: row.study_instance_uid,
      patient_name: formatPersonName(row.patient_name),
      patient_id: row.patient_id,
      study_date: row.study_date,
      study_description: row.study_description,
      modalities,
      series: own.map((s) => ({
        series_instance_uid: s.series_instance_uid,
        modality: s.modality,
        series_description: s.series_description,
        instances: s.instances,
      })),
      instances: row.instances,
      sources: (sourcesOf.get(row.study_instance_uid) ?? []).map((s) => ({ file_id: s.file_id, file: s.file })),
    };
  });
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
