// Every browser suite ends the same way: a screenshot of the page when a test failed, then the
// browser closed, the portal stopped and whatever else the suite made removed.
import type { Browser } from 'playwright-core';
import { afterAll, afterEach } from 'vitest';
import { captureFailure, type Session } from './browser.js';
import type { Portal } from './portal.js';

/** What the suite started; read when the hooks run, so a set-up that failed halfway is fine. */
interface Started {
  session: Session | undefined;
  browser: Browser | undefined;
  portal: Portal | undefined;
  others?: ({ remove(): Promise<void> } | undefined)[];
}

export function tearDownSuite(started: () => Started): void {
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') await captureFailure(started().session?.page, task.name);
  });
  afterAll(async () => {
    const { browser, portal, others = [] } = started();
    await browser?.close();
    await portal?.stop();
    for (const other of others) await other?.remove();
  });
}
