/**
 * What to do about a reason processing gives (issue 36): the server's reasons are fixed strings
 * (the summary counts entries by them, docs/processing.md), so the remedy is added here, where
 * people read them.
 */
const REMEDIES: ReadonlyArray<[reason: string, remedy: string]> = [
  ['password-protected archives are not supported', 'Send it without a password, or unpacked.'],
];

/** The reason followed by what to do about it, when there is something to do. */
export function withRemedy(reason: string): string {
  const remedy = REMEDIES.find(([known]) => reason.includes(known))?.[1];
  return remedy ? `${reason.replace(/[.\s]*$/, '')}. ${remedy}` : reason;
}
