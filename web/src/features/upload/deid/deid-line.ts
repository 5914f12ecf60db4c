import { deidentificationWords } from '../../../lib/deidentification-words';
import type { UploadDeidentification } from '../api/deidentification';

/** The dialog's one line about de-identification, or null when the project keeps what is sent. */
export function deidentificationLine(policy: UploadDeidentification): string | null {
  if (policy.profile === 'off') return null;
  const words = deidentificationWords(policy);
  if (policy.key === null) return `Patient identity is removed by the portal when the files arrive: ${words}`;
  return `Patient identity is removed on this computer before upload: ${words}`;
}
