/** Spec §9: a finished progress bar stays full this long before it resets to 0. */
export const PROGRESS_RESET_MS = 500;

export function percentOf(loaded: number, total: number): number {
  if (total <= 0) return 0;
  return Math.min(100, Math.round((loaded / total) * 100));
}
