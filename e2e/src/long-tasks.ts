// The page's long tasks (the Long Tasks API: any task of the page's main thread over 50 ms), as
// Chromium reports them, recorded from before the app's own scripts run.
import type { Page } from 'playwright-core';

export interface LongTask {
  /** performance.now() of the page when the task began, ms. */
  start: number;
  ms: number;
}

/** For page.addInitScript: every long task of the page, kept in a global the test reads. */
export const LONG_TASK_OBSERVER = `
  globalThis.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) globalThis.__longTasks.push({ start: e.startTime, ms: e.duration }); })
    .observe({ type: 'longtask', buffered: true });
`;

export const pageNow = (page: Page): Promise<number> => page.evaluate(() => performance.now());

/** The long tasks that began at or after `from` (the page's clock). */
export function longTasksSince(page: Page, from: number): Promise<LongTask[]> {
  return page.evaluate((start) => (globalThis as unknown as { __longTasks: LongTask[] }).__longTasks.filter((t) => t.start >= start), from);
}
