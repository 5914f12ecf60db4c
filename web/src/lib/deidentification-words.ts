// How a de-identification policy reads in one line ('Basic profile, dates shifted'): the project
// page's line and the upload dialog's say it the same way.
import { DEIDENTIFICATION_OPTIONS, type TDeidentificationOption, type TDeidentificationPolicy, type TDeidentificationReport } from '@portal/contract';

/** Each option as a few words, in the line after the profile. */
export const OPTION_SHORT_WORDS: Record<TDeidentificationOption, string> = {
  retainLongitudinalModifiedDates: 'dates shifted',
  retainPatientCharacteristics: 'patient characteristics kept',
  retainDeviceIdentity: 'device identity kept',
  retainSafePrivate: 'safe private attributes kept',
  cleanDescriptors: 'descriptors cleaned',
  retainUIDs: 'UIDs kept',
};

/** 'Basic profile' with its options in the standard's order, or null for `off` (nothing is removed). */
export function deidentificationWords(policy: Pick<TDeidentificationPolicy, 'profile' | 'options'> & { profile: 'basic' }): string;
export function deidentificationWords(policy: Pick<TDeidentificationPolicy, 'profile' | 'options'>): string | null;
export function deidentificationWords(policy: Pick<TDeidentificationPolicy, 'profile' | 'options'>): string | null {
  if (policy.profile === 'off') return null;
  const options = DEIDENTIFICATION_OPTIONS.filter((option) => policy.options.includes(option));
  return ['Basic profile', ...options.map((option) => OPTION_SHORT_WORDS[option])].join(', ');
}

/** A count as the report writes it: '2,000'. */
function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** '1 instance' / '3 instances'. */
function instances(n: number): string {
  return `${count(n)} ${n === 1 ? 'instance' : 'instances'}`;
}

/** The report names at most 500 flagged instances (a row's JSON stays small): only those come first in the contents. */
function listedFirst(report: TDeidentificationReport): string {
  const listed = report.needs_review.length;
  if (listed < report.needs_review_total) return `The first ${count(listed)} are listed first.`;
  return listed === 1 ? 'It is listed first.' : 'They are listed first.';
}

/**
 * An upload's de-identification report (issue 33, item 5) as a few short lines: what was applied,
 * who did it, what was changed, and how many instances a person should look at.
 */
export function reportWords(report: TDeidentificationReport): { applied: string; by: string; notKept: string | null; changed: string; review: string | null } {
  const { instances: done, counts } = report;
  const changed = [
    `${count(counts.removed)} removed`,
    `${count(counts.replaced)} replaced`,
    `${count(counts.shifted)} shifted`,
    ...(counts.cleaned > 0 ? [`${count(counts.cleaned)} cleaned`] : []),
  ];
  return {
    applied: `${deidentificationWords(report)} (${report.edition})`,
    by: `De-identified: ${instances(done.browser)} in the browser, ${instances(done.server)} by the server`,
    notKept: done.refused > 0 ? `Not kept: ${instances(done.refused)} that could not be read well enough to remove identity` : null,
    changed: `Attributes: ${changed.join(', ')}; private attributes removed: ${count(counts.private_removed)}; UIDs replaced: ${count(counts.uids_replaced)}`,
    review: report.needs_review_total > 0 ? `${instances(report.needs_review_total)} to review: identity may be burned into the pixels. ${listedFirst(report)}` : null,
  };
}
