/**
 * Files a worker takes at once: one read of their first bytes and one answer for all of them
 * (deid-work.ts runDeidBatch); at most 2 MiB of headers read at a time per worker. No imports:
 * the engine benchmark (bench/src/deid-chromium.ts) batches as the app does.
 */
export const BATCH_FILES = 32;

export function batches<T>(files: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < files.length; i += BATCH_FILES) out.push(files.slice(i, i + BATCH_FILES));
  return out;
}

/**
 * A file de-identified, or why it must be left out (in words for the person sending it). A small
 * file's bytes come as bytes; a larger one's as a Blob of its new header and the picked file's
 * Pixel Data, which is never read into memory.
 */
export type DeidOutcome = { made: Blob | Uint8Array<ArrayBuffer> } | { refused: string };
