// One of the de-identification workers (deid-pool.ts): the engine's CPU time stays off the page's thread.
import type { DeidOutcome } from './deid-batch';
import { packDeidBatch, runDeidBatch, transferablesOf, type DeidBatch, type DeidPackBatch, type PackedMembers } from './deid-work';

/** Files to answer one by one, or a bundle's members (`members`) to answer packed as tar members. */
export type WorkerRequest = (DeidBatch | DeidPackBatch) & { id: number };
export type WorkerAnswer = { id: number; outcomes: DeidOutcome[] } | { id: number; packed: PackedMembers } | { id: number; failed: string };

const answered = (id: number, work: Promise<void>) =>
  // A picked file that can no longer be read (moved, changed on disk since it was chosen).
  work.catch(() => self.postMessage({ id, failed: 'A file could not be read from the disk; check it is still there and try again.' } satisfies WorkerAnswer));

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const { id, ...batch } = event.data;
  // A packed batch is one Blob, handed over by reference.
  if ('members' in batch) void answered(id, packDeidBatch(batch).then((packed) => self.postMessage({ id, packed } satisfies WorkerAnswer)));
  // Blobs are handed over by reference, the small files' bytes by moving their one buffer.
  else void answered(id, runDeidBatch(batch).then((outcomes) => self.postMessage({ id, outcomes } satisfies WorkerAnswer, { transfer: transferablesOf(outcomes) })));
};
