// What the delivery benchmark reads from Chromium while the web app sends a folder: the page's
// longest tasks (the Long Tasks API, installed before the app loads) and memory over time (the
// page's JS heap through CDP, and the PSS of Chromium's whole process tree, workers included).
import type { CDPSession, Page } from 'playwright-core';
import { isFlat, treeMemoryBytes } from './deid-chromium.js';

/** Installed by page.addInitScript: every long task of the page, kept in a global (the e2e's observer). */
export { LONG_TASK_OBSERVER } from '../../e2e/src/long-tasks.js';

/** The longest task (ms) that started in [from, to) of the page's clock. */
export function longestTaskBetween(page: Page, from: number, to: number): Promise<number> {
  return page.evaluate(
    ([start, end]) => {
      const tasks = (globalThis as unknown as { __longTasks: { start: number; ms: number }[] }).__longTasks;
      return tasks.filter((t) => t.start >= start && t.start < end).reduce((max, t) => Math.max(max, t.ms), 0);
    },
    [from, to] as const,
  );
}

export { pageNow } from '../../e2e/src/long-tasks.js';

export interface MemorySample {
  at: number;
  heapBytes: number;
  treeBytes: number;
}

/** Samples every ~500 ms until stopped; a sample that fails (the page navigating) is skipped. */
export function sampleMemory(cdp: CDPSession, browserPid: number): { stop(): Promise<MemorySample[]> } {
  const samples: MemorySample[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const { metrics } = await cdp.send('Performance.getMetrics');
        const heapBytes = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
        samples.push({ at: Date.now(), heapBytes, treeBytes: await treeMemoryBytes(browserPid) });
      } catch {
        // Between documents: the next sample counts.
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return samples;
    },
  };
}

/** The page's JS heap after a full garbage collection: what the page keeps, not what it has yet to free. */
export async function retainedHeapBytes(cdp: CDPSession): Promise<number> {
  await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  return metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
}

/**
 * Flat (isFlat): what the page's heap keeps after a garbage collection, at the end of the send
 * against before the folder was chosen; the peaks while sending (garbage included) are printed.
 */
export function flatness(samples: MemorySample[], retained: { before: number; after: number }): { flat: boolean; words: string } {
  const peak = (of: (s: MemorySample) => number) => samples.reduce((max, s) => Math.max(max, of(s)), 0);
  const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
  const flat = isFlat(retained.before, retained.after);
  return {
    flat,
    words: `page heap kept ${mb(retained.before)} → ${mb(retained.after)} MB (peak ${mb(peak((s) => s.heapBytes))} while sending), Chromium's processes peak ${mb(peak((s) => s.treeBytes))} MB`,
  };
}
