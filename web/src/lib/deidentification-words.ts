// How a de-identification policy reads in one line ('Basic profile, dates shifted'): the project
// page's line and the upload dialog's say it the same way.
import { DEIDENTIFICATION_OPTIONS, type TDeidentificationOption, type TDeidentificationPolicy } from '@portal/contract';

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
