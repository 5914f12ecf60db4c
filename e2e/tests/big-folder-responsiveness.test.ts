// Issue 36 item 5: the page stays responsive while a big folder goes. A CD export of 2,000 real CT
// images is chosen with Select Folder and sent as one delivery through the real upload dialog until
// the project's table shows it processed; every long task of the page (the Long Tasks API, observed
// from before the app's scripts run) from the choice on is recorded, and none may reach 200 ms.
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { apiListFiles, apiLogin } from '../src/api.js';
import { launchBrowser, type Session } from '../src/browser.js';
import { makeBigCdExport, makeWorkspace, type Workspace } from '../src/files.js';
import { LONG_TASK_OBSERVER, longTasksSince, pageNow } from '../src/long-tasks.js';
import { startPortal, type Portal } from '../src/portal.js';
import { signInWithProject } from '../src/project-setup.js';
import { tearDownSuite } from '../src/suite.js';
import { fileRow } from '../src/ui.js';

const USER = { username: 'grace', password: 'C0bol-Compiler!' };
const PROJECT = 'Big CD exports';
const IMAGES = 2000;
/** The issue's bound: no task of the page's main thread this long while a 2,000-file folder goes. */
const LONGEST_TASK_MS = 200;

let portal: Portal;
let browser: Browser;
let session: Session;
let workspace: Workspace;
let projectId: number;
let cdDir: string;

beforeAll(async () => {
  [portal, browser, workspace] = await Promise.all([startPortal(), launchBrowser(), makeWorkspace()]);
  cdDir = path.join(workspace.dir, 'PATIENTCD');
  await makeBigCdExport(cdDir, IMAGES);
  ({ session, projectId } = await signInWithProject(portal, browser, {
    company: 'Hopper Radiology',
    user: { ...USER, firstname: 'Grace', lastname: 'Hopper' },
    project: PROJECT,
  }));
  // From the next page the app loads on: the observer runs before any of its scripts.
  await session.page.addInitScript(LONG_TASK_OBSERVER);
});

tearDownSuite(() => ({ session, browser, portal, others: [workspace] }));

describe('a folder of 2,000 files', () => {
  test('is chosen, sent as one delivery and shown processed without a task of the page reaching 200 ms', async () => {
    const { page } = session;
    await page.goto(`/study/${projectId}`);
    await page.getByRole('heading', { name: PROJECT, level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Upload Files/Folder' }).click();
    const dialog = page.getByRole('dialog', { name: 'Upload Files' });
    await dialog.waitFor();

    const chosenAt = await pageNow(page);
    await dialog.getByLabel('Select Folder').setInputFiles(cdDir);
    await dialog.getByTestId('folder-info').waitFor({ timeout: 30_000 });
    await dialog.getByText(`Selected files (${IMAGES + 1} of ${IMAGES + 1})`).waitFor();
    const send = dialog.getByRole('button', { name: 'Upload Files' });
    await expect.poll(() => send.isEnabled()).toBe(true);
    await send.click();
    // Spec §4: the dialog closes by itself once every file has arrived.
    await dialog.waitFor({ state: 'hidden', timeout: 90_000 });
    await fileRow(page, 'PATIENTCD').getByText('Ready', { exact: true }).waitFor({ timeout: 60_000 });

    // Arrived whole: one row, every file of the folder an entry of it, every image an instance.
    const { token } = await apiLogin(portal.url, USER.username, USER.password);
    const files = await apiListFiles(portal.url, token, projectId);
    expect(files.map((f) => f.file)).toEqual(['PATIENTCD']);
    const summary = files[0]?.processing.summary as { entries: number; instances: number } | null;
    expect(summary).toMatchObject({ entries: IMAGES + 1, instances: IMAGES });

    const tasks = await longTasksSince(page, chosenAt);
    const longest = tasks.reduce((max, t) => Math.max(max, t.ms), 0);
    // Printed for docs/performance.md: how many tasks were long, the longest, and when they began.
    const worst = [...tasks].sort((a, b) => b.ms - a.ms).slice(0, 5);
    console.log(`big folder: ${tasks.length} long tasks; the longest ${worst.map((t) => `${t.ms.toFixed(0)} ms at ${((t.start - chosenAt) / 1000).toFixed(1)} s`).join(', ')}; load ${os.loadavg()[0]?.toFixed(1)}`);
    expect(longest).toBeLessThan(LONGEST_TASK_MS);
  });
});
