// One of the de-identification workers (deid-pool.ts): the engine's CPU time stays off the page's thread.
import type { DeidOutcome } from './deid-batch';
import { runDeidBatch, transferablesOf, type DeidBatch } from './deid-work';

export type WorkerRequest = DeidBatch & { id: number };
export type WorkerAnswer = { id: number; outcomes: DeidOutcome[] } | { id: number; failed: string };

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const { id, ...batch } = event.data;
  runDeidBatch(batch).then(
    // Blobs are handed over by reference, the small files' bytes by moving their one buffer.
    (outcomes) => self.postMessage({ id, outcomes } satisfies WorkerAnswer, { transfer: transferablesOf(outcomes) }),
    // A picked file that can no longer be read (moved, changed on disk since it was chosen).
    () => self.postMessage({ id, failed: 'A file could not be read from the disk; check it is still there and try again.' } satisfies WorkerAnswer),
  );
};
