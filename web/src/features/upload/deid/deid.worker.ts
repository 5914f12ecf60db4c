// One of the de-identification workers (deid-pool.ts): the engine's CPU time stays off the page's thread.
import { runDeidTask, type DeidTask } from './deid-work';

export type WorkerRequest = DeidTask & { id: number };
export type WorkerAnswer = { id: number; bytes: Uint8Array } | { id: number; refused: string };

/** A view of its own buffer, which can be handed over instead of copied. */
function owned(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes as Uint8Array<ArrayBuffer>;
  return bytes.slice();
}

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const { id, ...task } = event.data;
  void runDeidTask(task).then((outcome) => {
    if ('refused' in outcome) {
      self.postMessage({ id, refused: outcome.refused } satisfies WorkerAnswer);
      return;
    }
    const bytes = owned(outcome.bytes);
    self.postMessage({ id, bytes } satisfies WorkerAnswer, { transfer: [bytes.buffer] });
  });
};
