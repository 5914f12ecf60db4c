// Issue 14 items 4, 6, 7 and 9 in a real browser against the real server: the project's files
// table searched and sorted by the server, the page selected apart from every matching file, the
// cards of a phone with their actions in view, and the summary line of a CD export adding up.
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { apiCreateProject, apiListFiles, apiLogin } from '../src/api.js';
import { captureScreen, launchBrowser, openSession, type Session } from '../src/browser.js';
import { CT_SERIES, CT_SMALL, dicomPath, makeCdExport, makeWorkspace, MR_SMALL, type Workspace } from '../src/files.js';
import { startPortal, type Portal } from '../src/portal.js';
import { tearDownSuite } from '../src/suite.js';
import { eventually, signIn, toast } from '../src/ui.js';

const USER = { username: 'grace', password: 'C0bol!Compiler' };
/** Seven different DICOM files: more than the default page of 5. */
const SOURCES = [CT_SMALL, ...CT_SERIES, MR_SMALL];
const FILE_COUNT = SOURCES.length;

let portal: Portal;
let browser: Browser;
let session: Session;
let workspace: Workspace;
let token: string;
let scans: string[];
let cdDir: string;
let projectId: number;

const listFiles = (id: number) => apiListFiles(portal.url, token, id);

async function openProject(page: Page, id: number, name: string): Promise<void> {
  await page.goto(`/study/${id}`);
  await page.getByRole('heading', { name, level: 1 }).waitFor();
}

/** Sends files (or a folder) through the upload dialog, as a user does, and waits until all are processed. */
async function upload(page: Page, id: number, picker: 'Select Files' | 'Select Folder', paths: string | string[], expected: number): Promise<void> {
  await page.getByRole('button', { name: 'Upload Files/Folder' }).click();
  const dialog = page.getByRole('dialog', { name: 'Upload Files' });
  await dialog.getByLabel(picker).setInputFiles(paths);
  await dialog.getByRole('button', { name: 'Upload Files' }).click();
  await toast(page, 'Files uploaded successfully').waitFor({ timeout: 60_000 });
  await dialog.waitFor({ state: 'detached' });
  await eventually(() => listFiles(id), (files) => files.length === expected && files.every((f) => f.processing.status === 'ready'), 'every upload processed', 90_000);
  await page.reload();
}

function fileNames(page: Page): Promise<string[]> {
  return page
    .getByRole('table', { name: 'Project files' })
    .getByRole('row')
    .locator('td:nth-child(2) button')
    .allTextContents();
}

beforeAll(async () => {
  [portal, browser, workspace] = await Promise.all([startPortal(), launchBrowser(), makeWorkspace()]);
  const scanDir = path.join(workspace.dir, 'scans');
  await mkdir(scanDir);
  // Different images under names that search and sort tell apart (a duplicate would keep the upload dialog open).
  scans = SOURCES.map((_, i) => path.join(scanDir, `scan-${String(i + 1).padStart(2, '0')}.dcm`));
  for (const [i, source] of SOURCES.entries()) await copyFile(dicomPath(source), scans[i] ?? '');
  cdDir = path.join(workspace.dir, 'CD');
  await makeCdExport(cdDir, CT_SERIES);
  const companyId = await portal.createCompany('Hopper Imaging');
  await portal.createUser({ companyId, ...USER, firstname: 'Grace', lastname: 'Hopper', role: 'User' });
  ({ token } = await apiLogin(portal.url, USER.username, USER.password));
  projectId = await apiCreateProject(portal.url, token, 'Many scans');
  session = await openSession(browser, portal.url);
  await signIn(session.page, USER);
  await openProject(session.page, projectId, 'Many scans');
  await upload(session.page, projectId, 'Select Files', scans, FILE_COUNT);
}, 240_000);

tearDownSuite(() => ({ session, browser, portal, others: [workspace] }));

describe('the project files table', () => {
  test('searches by name and sorts by a column, answered by the server', async () => {
    const { page } = session;
    await page.getByText(`${FILE_COUNT} files found`, { exact: true }).waitFor();
    await page.getByText(`1–5 of ${FILE_COUNT}`, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'File', exact: true }).click();
    await eventually(() => fileNames(page), (names) => names[0] === 'scan-01.dcm', 'names sorted ascending');
    expect(await fileNames(page)).toEqual(['scan-01.dcm', 'scan-02.dcm', 'scan-03.dcm', 'scan-04.dcm', 'scan-05.dcm']);
    await page.getByRole('button', { name: 'File', exact: true }).click();
    await eventually(() => fileNames(page), (names) => names[0] === 'scan-07.dcm', 'names sorted descending');
    await captureScreen(page, 'files-table-sorted');

    await page.getByRole('searchbox', { name: 'Search files' }).fill('SCAN-0');
    await page.getByText(`${FILE_COUNT} files found`, { exact: true }).waitFor();
    await page.getByRole('searchbox', { name: 'Search files' }).fill('scan-03');
    await page.getByText('1 files found', { exact: true }).waitFor();
    expect(await fileNames(page)).toEqual(['scan-03.dcm']);
    await page.getByRole('searchbox', { name: 'Search files' }).fill('');
    await page.getByText(`${FILE_COUNT} files found`, { exact: true }).waitFor();
  });

  test("selects the page with the header checkbox, then every file with 'Select all N files'", async () => {
    const { page } = session;
    await openProject(page, projectId, 'Many scans');
    await page.getByRole('checkbox', { name: 'Select all files' }).check();
    await page.getByText('(5 selected)', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete Selected (5)' }).click();
    let dialog = page.getByRole('dialog', { name: 'Confirm Bulk Delete' });
    expect(await dialog.getByRole('list', { name: 'Files to delete' }).getByRole('listitem').allTextContents()).toHaveLength(5);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: `Select all ${FILE_COUNT} files` }).click();
    await page.getByText(`(${FILE_COUNT} selected)`, { exact: true }).waitFor();
    await page.getByText(`All ${FILE_COUNT} files are selected.`, { exact: true }).waitFor();
    await page.getByRole('button', { name: `Delete Selected (${FILE_COUNT})` }).click();
    dialog = page.getByRole('dialog', { name: 'Confirm Bulk Delete' });
    await dialog.getByText(`Are you sure you want to delete ${FILE_COUNT} selected file(s)? This action cannot be undone.`, { exact: true }).waitFor();
    const listed = await dialog.getByRole('list', { name: 'Files to delete' }).getByRole('listitem').allTextContents();
    // The first five in the server's order (newest first), then how many more.
    const newestFirst = (await listFiles(projectId)).map((f) => f.file);
    expect(listed).toEqual([...newestFirst.slice(0, 5), `and ${FILE_COUNT - 5} more`]);
    await captureScreen(page, 'files-table-bulk-delete');
    await dialog.getByRole('button', { name: `Delete ${FILE_COUNT} Files` }).click();
    await toast(page, `${FILE_COUNT} files deleted successfully`).waitFor({ timeout: 60_000 });
    // Exactly what the dialog said: every file of the project, and nothing left behind.
    expect(await listFiles(projectId)).toEqual([]);
    await page.getByText('No files found', { exact: true }).waitFor();
  });

  test('a CD export is one row whose summary line adds up, and a phone shows it as a card with its actions', async () => {
    const { page } = session;
    const cdProject = await apiCreateProject(portal.url, token, 'Patient CD');
    await openProject(page, cdProject, 'Patient CD');
    await upload(page, cdProject, 'Select Folder', cdDir, 1);
    const row = page.getByRole('table', { name: 'Project files' }).getByRole('row').filter({ has: page.getByRole('button', { name: 'CD', exact: true }) });
    await row.getByText('Ready', { exact: true }).waitFor({ timeout: 60_000 });
    const [cd] = await listFiles(cdProject);
    const summary = cd?.processing.summary as { entries: number } | null;
    expect(summary?.entries).toBeGreaterThan(0);
    // '7 files: 6 instances, 1 DICOMDIR': the parts add up to the files counted.
    const line = await row.getByText(new RegExp(`^${summary?.entries} files?: `)).textContent();
    const parts = (line ?? '').replace(/^\d+ files?: /, '').replace(/ \([^)]*\)/g, '').split(', ').filter((part) => !part.includes('already in the project'));
    expect(parts.reduce((sum, part) => sum + Number(part.split(' ')[0]), 0)).toBe(summary?.entries);
    await captureScreen(page, 'files-table-cd-desktop');

    await page.setViewportSize({ width: 390, height: 844 });
    const card: Locator = page.getByRole('list', { name: 'Project files' }).getByRole('listitem', { name: 'CD' });
    // The layout changes once the page has seen the new width: the card first, then no table.
    await card.waitFor();
    expect(await page.getByRole('table', { name: 'Project files' }).count()).toBe(0);
    for (const action of ['View contents of CD', 'Download CD', 'Delete CD']) {
      await expect(card.getByRole('button', { name: action }).isVisible()).resolves.toBe(true);
      const box = await card.getByRole('button', { name: action }).boundingBox();
      expect(box !== null && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    }
    // No sideways scrolling: the page is no wider than the phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await captureScreen(page, 'files-table-phone');
    await page.emulateMedia({ colorScheme: 'dark' });
    await captureScreen(page, 'files-table-phone-dark');
    await page.setViewportSize({ width: 1280, height: 800 });
    await captureScreen(page, 'files-table-desktop-dark');
    await page.emulateMedia({ colorScheme: 'light' });

  }, 180_000);
});
