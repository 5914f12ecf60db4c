// How many bytes one extraction run may write: the upload's remaining total or the layer's ratio
// allowance, whichever is smaller, shared out when two threads extract halves of a zip.
import type { IngestLimits } from '../limits.js';
import type { WriteGuard } from './sevenzip/sevenzip-protocol.js';

export interface LayerBudget {
  /** Bytes still allowed by maxTotalBytes; the layer subtracts what it writes. */
  remainingBytes: number;
  /** Entries still allowed by maxEntries; the layer subtracts what it lists. */
  remainingEntries: number;
}

type GuardLimits = Pick<IngestLimits, 'maxEntryBytes' | 'maxCompressionRatio' | 'ratioFloorBytes'>;

export function writeGuard(
  limits: GuardLimits,
  remainingBytes: number,
  archiveBytes: number,
  expectedSizes: Record<string, number>,
  single: boolean,
  /** Bytes earlier runs of the same layer wrote (windows, reruns): the ratio bounds the layer. */
  layerWritten = 0,
): WriteGuard {
  const ratio = Math.max(Math.max(limits.maxCompressionRatio * archiveBytes, limits.ratioFloorBytes) - layerWritten, 0);
  return {
    maxEntryBytes: single ? null : limits.maxEntryBytes,
    expectedSizes,
    budgetBytes: Math.min(ratio, remainingBytes),
    budgetReason: ratio < remainingBytes ? 'ratio' : 'total',
  };
}

/**
 * Two contiguous halves of the entries, each with the bytes its entries promise plus half of what
 * the layer's budget leaves over, so together they never exceed the layer's budget.
 */
export function splitRuns(pending: readonly string[], sizeOf: (path: string) => number | null, guard: WriteGuard): { paths: string[]; budget: WriteGuard }[] {
  const half = Math.ceil(pending.length / 2);
  const parts = [pending.slice(0, half), pending.slice(half)];
  const planned = parts.map((paths) => paths.reduce((sum, p) => sum + (sizeOf(p) ?? 0), 0));
  const total = planned[0]! + planned[1]!;
  return parts.map((paths, i) => {
    const share = total <= guard.budgetBytes ? planned[i]! + (guard.budgetBytes - total) / 2 : (guard.budgetBytes * planned[i]!) / Math.max(total, 1);
    return { paths, budget: { ...guard, budgetBytes: Math.floor(share) } };
  });
}
