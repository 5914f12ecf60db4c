/**
 * Resolves in a later task, so that the browser can paint and answer input between two slices of
 * work on the page's thread (a MessageChannel message, not setTimeout: nested timeouts wait 4 ms).
 */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/** How long a slice of work may hold the page: well under the 50 ms a task may take before it counts as long. */
const SLICE_MS = 30;

/** `items.map(work)` in slices of at most SLICE_MS, the page free between them. */
export async function mapInSlices<T, U>(items: readonly T[], work: (item: T) => U): Promise<U[]> {
  const out: U[] = [];
  let sliceStart = performance.now();
  for (const item of items) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextTask();
      sliceStart = performance.now();
    }
    out.push(work(item));
  }
  return out;
}
