// A project's arrival rules said in one line (the project page's note), from the contract's rules.
import type { TReviewRules } from '@portal/contract';

export function rulesWords(rules: TReviewRules): string {
  const parts: string[] = [];
  if (rules.modalities.length > 0) parts.push(`modalities ${rules.modalities.join(', ')}`);
  if (rules.patients_per_upload) parts.push(`${rules.patients_per_upload.mode === 'exactly' ? 'exactly' : 'at most'} ${rules.patients_per_upload.count} ${rules.patients_per_upload.count === 1 ? 'patient' : 'patients'} per upload`);
  for (const series of rules.required_series) {
    parts.push(`a ${series.modality} series${series.description ? ` like “${series.description}”` : ''} of at least ${series.min_instances} ${series.min_instances === 1 ? 'instance' : 'instances'}`);
  }
  if (rules.study_dates && (rules.study_dates.from || rules.study_dates.to)) {
    const { from, to } = rules.study_dates;
    parts.push(from && to ? `studies from ${from} to ${to}` : from ? `studies from ${from}` : `studies until ${to}`);
  }
  if (rules.one_patient_per_study) parts.push('one PatientID per study');
  if (rules.consistent_patients) parts.push('consistent patients');
  if (rules.no_conflicting_instances) parts.push('no conflicting instances');
  if (rules.deidentified) parts.push('de-identified where the project asks');
  return parts.length ? `Arrival rules: ${parts.join('; ')}` : 'Arrival rules: none, every upload awaits review';
}
