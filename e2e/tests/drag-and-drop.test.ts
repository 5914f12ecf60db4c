// Issue 36 item 2 in a real browser: a CD export folder dragged from the desktop onto the project's
// page, and files dragged onto the upload dialog. Chromium is sent the drag through the DevTools
// protocol with real paths on disk (Input.dispatchDragEvent), so the page reads a real folder through
// the browser's entry API, as it would from a file manager.
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { apiCreateProject, apiListFiles, apiLogin } from '../src/api.js';
import { captureScreen, launchBrowser, openSession, type Session } from '../src/browser.js';
import { CT_SERIES, dicomPath, makeCdExport, makeWorkspace, MR_SMALL, type Workspace } from '../src/files.js';
import { startPortal, type Portal } from '../src/portal.js';
import { tearDownSuite } from '../src/suite.js';
import { eventually, signIn, toast } from '../src/ui.js';

const USER = { username: 'lise', password: 'Fissi0n-Kr1ege!' };
const PROJECT = 'Meitner Phantom Study';
const DROP_HINT = 'Drop files or a folder to upload them: archives and DICOM files, a folder as one delivery';

let portal: Portal;
let browser: Browser;
let session: Session;
let workspace: Workspace;
let token: string;
let projectId: number;
let cdDir: string;

type DragStep = 'dragEnter' | 'dragOver' | 'drop';

/** Drags `paths` (files or folders on disk) to the middle of `box`, and drops them unless told not to. */
async function drag(page: Page, paths: string[], target: { x: number; y: number }, steps: DragStep[] = ['dragEnter', 'dragOver', 'drop']): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const data = { items: [], files: paths, dragOperationsMask: 1 };
    for (const type of steps) await cdp.send('Input.dispatchDragEvent', { type, x: target.x, y: target.y, data });
  } finally {
    await cdp.detach();
  }
}

async function middleOf(target: Locator): Promise<{ x: number; y: number }> {
  const box = await target.boundingBox();
  if (!box) throw new Error('nothing to drop on');
  return { x: box.x + box.width / 2, y: box.y + Math.min(box.height / 2, 200) };
}

beforeAll(async () => {
  [portal, browser, workspace] = await Promise.all([startPortal(), launchBrowser(), makeWorkspace()]);
  cdDir = path.join(workspace.dir, 'CD');
  await makeCdExport(cdDir, CT_SERIES);
  const companyId = await portal.createCompany('Meitner Institute');
  await portal.createUser({ companyId, ...USER, firstname: 'Lise', lastname: 'Meitner', role: 'User' });
  ({ token } = await apiLogin(portal.url, USER.username, USER.password));
  projectId = await apiCreateProject(portal.url, token, PROJECT);
  session = await openSession(browser, portal.url);
  await signIn(session.page, USER);
});

tearDownSuite(() => ({ session, browser, portal, others: [workspace] }));

describe('drag and drop', () => {
  test('a folder dragged onto the project page says what it takes, opens the dialog with it, and arrives as one delivery', async () => {
    const { page } = session;
    await page.goto(`/study/${projectId}`);
    const heading = page.getByRole('heading', { name: PROJECT, level: 1 });
    await heading.waitFor();
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await drag(page, [cdDir], await middleOf(heading), ['dragEnter', 'dragOver']);
      await page.getByRole('status').filter({ hasText: DROP_HINT }).waitFor();
      await captureScreen(page, `drop-zone-project-${width}`);
      await drag(page, [cdDir], await middleOf(heading), ['dragOver', 'drop']);
      const dialog = page.getByRole('dialog', { name: 'Upload Files' });
      // DICOMDIR and the five images in its subfolders, taken by content as Select Folder takes them; the README left out.
      await expect.poll(() => dialog.textContent()).toContain('Folder "CD": 7 files in total, 6 DICOM files');
      expect(await dialog.textContent()).toContain('CD/DICOM/ST000001/SE000001/IM000001');
      if (width === 390) break;
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    const dialog = page.getByRole('dialog', { name: 'Upload Files' });
    await dialog.getByRole('button', { name: 'Upload Files' }).click();
    await toast(page, 'Files uploaded successfully').waitFor({ timeout: 60_000 });
    const files = await eventually(() => apiListFiles(portal.url, token, projectId), (list) => list.length === 1, 'the delivery to be listed');
    expect(files[0]).toMatchObject({ file: 'CD', kind: 'folder' });
  });

  test('files dragged onto the open dialog are added as picked files', async () => {
    const { page } = session;
    await page.getByRole('button', { name: 'Upload Files/Folder' }).click();
    const dialog = page.getByRole('dialog', { name: 'Upload Files' });
    await dialog.waitFor();
    const target = await middleOf(dialog.getByText(/^Select files or a whole folder, or drop them here/));
    await drag(page, [dicomPath(MR_SMALL)], target, ['dragEnter', 'dragOver']);
    await dialog.getByRole('status').filter({ hasText: DROP_HINT }).waitFor();
    await captureScreen(page, 'drop-zone-dialog-1280');
    await drag(page, [dicomPath(MR_SMALL)], target, ['dragOver', 'drop']);
    await dialog.getByRole('checkbox', { name: MR_SMALL }).waitFor();
    expect(await dialog.textContent()).toContain('Selected files (1 of 1)');
    await dialog.getByRole('button', { name: 'Upload Files' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 60_000 });
    const files = await eventually(() => apiListFiles(portal.url, token, projectId), (list) => list.length === 2, 'the dropped file to be listed');
    expect(files.map((f) => f.file).sort()).toEqual(['CD', MR_SMALL]);
  });
});
