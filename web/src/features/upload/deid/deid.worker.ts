// One of the de-identification workers (deid-pool.ts): the engine's CPU time stays off the page's thread.
import type { DeidOutcome } from './deid-batch';
import { runDeidBatch, type DeidBatch } from './deid-work';

export type WorkerRequest = DeidBatch & { id: number };
export type WorkerAnswer = { id: number; outcomes: DeidOutcome[] } | { id: number; failed: string };

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const { id, ...batch } = event.data;
  runDeidBatch(batch).then(
    // Blobs are handed over by reference: their bytes stay where they are.
    (outcomes) => self.postMessage({ id, outcomes } satisfies WorkerAnswer),
    // A picked file that can no longer be read (moved, changed on disk since it was chosen).
    () => self.postMessage({ id, failed: 'A file could not be read from the disk; check it is still there and try again.' } satisfies WorkerAnswer),
  );
};
