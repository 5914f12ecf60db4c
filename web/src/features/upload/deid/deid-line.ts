import type { TDeidentificationOption } from '@portal/contract';
import type { UploadDeidentification } from '../api/deidentification';

/** Each option in a few words, in the order the policy lists them. */
const OPTION_WORDS: Record<TDeidentificationOption, string> = {
  retainLongitudinalModifiedDates: 'dates shifted',
  retainPatientCharacteristics: 'patient characteristics kept',
  retainDeviceIdentity: 'device identity kept',
  retainSafePrivate: 'safe private attributes kept',
  cleanDescriptors: 'descriptors cleaned',
  retainUIDs: 'UIDs kept',
};

/** The profile and its options as the dialog names them: 'Basic profile, dates shifted, UIDs kept'. */
export function describePolicy(options: readonly TDeidentificationOption[]): string {
  return ['Basic profile', ...options.map((o) => OPTION_WORDS[o])].join(', ');
}

/** The dialog's one line about de-identification, or null when the project keeps what is sent. */
export function deidentificationLine(policy: UploadDeidentification): string | null {
  if (policy.profile === 'off') return null;
  if (policy.key === null) return `Patient identity is removed by the portal when the files arrive: ${describePolicy(policy.options)}`;
  return `Patient identity is removed on this computer before upload: ${describePolicy(policy.options)}`;
}
