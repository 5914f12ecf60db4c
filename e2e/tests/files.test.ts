// A project's files: upload a DICOM file, a zip made by bsdtar and a folder through the dialog,
// processing to ready with its counts, contents, download by sha256, single and bulk delete.
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { captureScreen, launchBrowser, moveAwayFromTooltips, openSession, type Session } from '../src/browser.js';
import { CT_SERIES, CT_SMALL, dicomPath, makeFolder, makeWorkspace, makeZip, MR_SMALL, RT_DOSE, sha256, DICOM_DIR, type Workspace } from '../src/files.js';
import { startPortal, type Portal } from '../src/portal.js';
import { signInWithProject } from '../src/project-setup.js';
import { tearDownSuite } from '../src/suite.js';
import { escapeRegExp, fileRow, holdRequests, overlay, toast } from '../src/ui.js';

const USER = { username: 'rosalind', password: 'Fr4nklin!DNA' };
const PROJECT = 'CT Study 2026';
const ZIP = 'ct-series.zip';
const FOLDER = 'mr-folder';
const NOTES = 'notes.txt';

let portal: Portal;
let browser: Browser;
let session: Session;
let workspace: Workspace;
let projectId: number;
let zipPath: string;
let folderPath: string;
let emptyFolderPath: string;

beforeAll(async () => {
  [portal, browser, workspace] = await Promise.all([startPortal(), launchBrowser(), makeWorkspace()]);
  zipPath = await makeZip(path.join(workspace.dir, ZIP), DICOM_DIR, CT_SERIES);
  folderPath = await makeFolder(path.join(workspace.dir, FOLDER), [MR_SMALL], [NOTES]);
  emptyFolderPath = await makeFolder(path.join(workspace.dir, 'only-notes'), [], ['a.txt', 'b.txt']);
  ({ session, projectId } = await signInWithProject(portal, browser, {
    company: 'Franklin Imaging',
    user: { ...USER, firstname: 'Rosalind', lastname: 'Franklin' },
    project: PROJECT,
  }));
});

tearDownSuite(() => ({ session, browser, portal, others: [workspace] }));

function filesTable(page: Page): Locator {
  return page.getByRole('table', { name: 'Project files' });
}

/** The file names in the table, in the order shown. */
async function shownFiles(page: Page): Promise<string[]> {
  return filesTable(page).locator('tbody tr td:nth-child(2) button').allInnerTexts();
}

async function openUploadDialog(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Upload Files/Folder' }).click();
  const dialog = page.getByRole('dialog', { name: 'Upload Files' });
  await dialog.waitFor();
  return dialog;
}

describe('project files', () => {
  test('an empty project: breadcrumb, banner, empty state', async () => {
    const { page } = session;
    await page.goto(`/study/${projectId}`);
    const breadcrumb = page.getByRole('navigation', { name: 'Breadcrumb' });
    await breadcrumb.getByRole('link', { name: 'Projects' }).waitFor();
    await breadcrumb.getByText(PROJECT, { exact: true }).waitFor();
    await page.getByRole('heading', { name: PROJECT, level: 1 }).waitFor();
    await page.getByText('0 files found', { exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Project Files' }).waitFor();
    await page.getByText('No files found', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Upload Files', exact: true }).waitFor();
    await page.getByText('(0 selected)', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Delete Selected (0)' }).isDisabled()).toBe(true);
    await captureScreen(page, 'project-detail-empty');
  });

  test('a folder without DICOM files or archives is refused with the spec text', async () => {
    const { page } = session;
    const dialog = await openUploadDialog(page);
    await dialog.getByLabel('Select Folder').setInputFiles(emptyFolderPath);
    await dialog.getByText('The folder selected does not contain any compressed files.', { exact: true }).waitFor();
    await dialog
      .getByText(
        'Folder "only-notes": 2 files in total, 0 DICOM files, 0 compressed files. Left out: only-notes/a.txt: not an archive or DICOM, only-notes/b.txt: not an archive or DICOM',
        { exact: true },
      )
      .waitFor();
    expect(await dialog.getByRole('button', { name: 'Upload Files' }).isDisabled()).toBe(true);
    await captureScreen(page, 'upload-dialog-folder-error');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  test('upload a DICOM file, a zip and a folder through the dialog', async () => {
    const { page } = session;
    const dialog = await openUploadDialog(page);
    await captureScreen(page, 'upload-dialog-empty');
    const upload = dialog.getByRole('button', { name: 'Upload Files' });
    expect(await upload.isDisabled()).toBe(true);

    await dialog.getByLabel('Select Files').setInputFiles([dicomPath(CT_SMALL), zipPath, dicomPath(RT_DOSE)]);
    await dialog.getByText('Selected files (3 of 3)', { exact: true }).waitFor();
    // Per-file checkboxes, Clear and Select All change what will be sent.
    await dialog.getByRole('checkbox', { name: ZIP }).uncheck();
    await dialog.getByText('Selected files (2 of 3)', { exact: true }).waitFor();
    await dialog.getByRole('button', { name: 'Clear' }).click();
    await dialog.getByText('Selected files (0 of 3)', { exact: true }).waitFor();
    expect(await upload.isDisabled()).toBe(true);
    await dialog.getByRole('button', { name: 'Select All' }).click();
    await dialog.getByText('Selected files (3 of 3)', { exact: true }).waitFor();

    // The folder keeps DICOM files and archives only: notes.txt is counted but left out. It is sent as
    // one delivery and becomes one row of the project, named after the folder.
    await dialog.getByLabel('Select Folder').setInputFiles(folderPath);
    await dialog
      .getByText(`Folder "${FOLDER}": 2 files in total, 1 DICOM file, 0 compressed files. Left out: ${FOLDER}/${NOTES}: not an archive or DICOM`, {
        exact: true,
      })
      .waitFor();
    await dialog.getByText('Selected files (4 of 4)', { exact: true }).waitFor();
    const listed = await dialog.getByRole('list', { name: 'Files to upload' }).getByRole('checkbox').evaluateAll((boxes) =>
      boxes.map((b) => b.getAttribute('aria-label')),
    );
    expect(listed.sort()).toEqual([CT_SMALL, ZIP, RT_DOSE, `${FOLDER}/${MR_SMALL}`].sort());
    await captureScreen(page, 'upload-dialog-selection');

    expect(await upload.isEnabled()).toBe(true);
    // The four tus uploads run in parallel; their bytes held, they show the dialog's progress state.
    // A file that fits in one chunk goes with its creation (POST), a larger one in PATCHes.
    // The zip's sha256 after download proves the held bodies reached the server intact.
    const held = await holdRequests(
      page,
      (url, method) => (method === 'PATCH' && url.pathname.startsWith('/api/v1/uploads/')) || (method === 'POST' && url.pathname === '/api/v1/uploads'),
    );
    await upload.click();
    await held.arrived;
    await dialog.getByText(/^Uploading files\.\.\. \d+%$/).waitFor();
    await dialog.getByText(/^0 of 4 files · /).waitFor();
    expect(await upload.isDisabled()).toBe(true);
    // Esc does not lose the upload silently: it asks, and keeping it goes on.
    // The pressed button is disabled while uploading, so focus is put back in the dialog for its Esc.
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).focus();
    await page.keyboard.press('Escape');
    const ask = page.getByRole('dialog', { name: 'Stop uploading?' });
    await ask.getByRole('button', { name: 'Keep Uploading' }).click();
    await ask.waitFor({ state: 'detached' });
    await captureScreen(page, 'upload-dialog-uploading');
    expect(await dialog.isVisible()).toBe(true);
    held.release();
    await toast(page, 'Files uploaded successfully').waitFor({ timeout: 60_000 });
    await held.dispose();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('4 files found', { exact: true }).waitFor();
    expect((await shownFiles(page)).sort()).toEqual([CT_SMALL, FOLDER, RT_DOSE, ZIP].sort());
    // The folder's row reads as a folder; the files picked one by one do not.
    await fileRow(page, FOLDER).getByRole('img', { name: 'Folder' }).waitFor();
    expect(await fileRow(page, RT_DOSE).getByRole('img', { name: 'Folder' }).count()).toBe(0);
  });

  test('processing ends ready, with the counts of what each upload holds', async () => {
    const { page } = session;
    const expected: Record<string, string> = {
      [ZIP]: '5 files: 5 instances',
      [CT_SMALL]: '1 file: 1 instance',
      // The folder's notes.txt was left out before sending (above): its one file is the MR instance.
      [FOLDER]: '1 file: 1 instance',
      [RT_DOSE]: '1 file: 1 instance',
    };
    // The page polls every 3 s while anything is pending or processing; no reload is needed.
    for (const [name, summary] of Object.entries(expected)) {
      const row = fileRow(page, name);
      await row.getByText('Ready', { exact: true }).waitFor({ timeout: 60_000 });
      await row.getByText(summary, { exact: true }).waitFor();
    }
    // Sizes are the real file sizes, in the spec's units with 2 decimals.
    const sizeOf = async (name: string) => (await fileRow(page, name).getByRole('cell').nth(2).innerText()).trim();
    expect(await sizeOf(CT_SMALL)).toBe('38.29 KB');
    expect(await sizeOf(RT_DOSE)).toBe('7.39 KB');
    const headers = await filesTable(page).getByRole('columnheader').allInnerTexts();
    expect(headers.map((h) => h.trim())).toEqual(['', 'File', 'Size', 'Date Created', 'Date Updated', 'Actions']);
    await page.getByRole('combobox', { name: /Rows per page/ }).waitFor();
    await page.getByText('1–4 of 4', { exact: true }).waitFor();
    await captureScreen(page, 'project-detail-files');
  });

  test("a file's contents: studies, series and every entry", async () => {
    const { page } = session;
    await page.getByRole('button', { name: `View contents of ${ZIP}` }).click();
    const dialog = page.getByRole('dialog', { name: `Contents of ${ZIP}` });
    await dialog.waitFor();
    const entries = dialog.getByRole('table', { name: 'Entries' });
    for (const name of CT_SERIES) await entries.getByRole('cell', { name, exact: true }).waitFor();
    expect(await entries.locator('tbody tr').count()).toBe(CT_SERIES.length);
    await dialog.getByRole('heading', { name: 'Studies' }).waitFor();
    await dialog.getByText('5 files: 5 instances', { exact: true }).waitFor();
    // The study tree: the one CT series with its five instances, read from the DICOM headers.
    const studies = dialog.getByRole('list', { name: 'Studies' });
    await studies.getByText('Study UID 1.3.6.1.4.1.5962.1.1.0.0.0.1194734704.16302.0.1', { exact: true }).waitFor();
    const series = studies.getByRole('list', { name: /^Series of / });
    expect(await series.getByRole('listitem').count()).toBe(1);
    await series.getByText('CT · SmartScore - Gated 0.5 sec', { exact: true }).waitFor();
    await series.getByText('5 instances', { exact: true }).waitFor();
    await captureScreen(page, 'file-contents');
    // The kind filter: nothing in this archive was skipped.
    await dialog.getByRole('button', { name: 'Skipped', exact: true }).click();
    await entries.getByRole('cell', { name: 'No entries', exact: true }).waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  test('downloads are byte for byte what was uploaded', async () => {
    const { page } = session;
    // While the download runs the overlay shows its percentage.
    const held = await holdRequests(page, (url) => url.pathname.startsWith('/api/v1/download-study-petitions-files/'));
    const first = page.waitForEvent('download');
    await page.getByRole('button', { name: `Download ${ZIP}`, exact: true }).click();
    await held.arrived;
    await overlay(page, 'Downloading file...').getByText('0%', { exact: true }).waitFor();
    await captureScreen(page, 'file-downloading');
    held.release();
    expect(await sha256(await (await first).path())).toBe(await sha256(zipPath));
    await overlay(page, 'Downloading file...').waitFor({ state: 'detached' });
    await held.dispose();

    for (const [name, original] of [
      [ZIP, zipPath],
      [CT_SMALL, dicomPath(CT_SMALL)],
    ] as const) {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: `Download ${name}`, exact: true }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(name);
      const saved = await download.path();
      expect(await sha256(saved)).toBe(await sha256(original));
      await toast(page, 'File downloaded successfully').first().waitFor();
    }
  });

  test('single delete asks first, then removes the file', async () => {
    const { page } = session;
    await page.getByRole('button', { name: `Delete ${RT_DOSE}`, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm Delete' });
    await dialog.getByText('Are you sure you want to delete this file?', { exact: true }).waitFor();
    await captureScreen(page, 'file-delete-dialog');
    const held = await holdRequests(page, (url, method) => method === 'PUT' && url.pathname.startsWith('/api/v1/study-petitions-files-delete/'));
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await held.arrived;
    await dialog.getByRole('button', { name: 'Deleting...' }).waitFor();
    // Shown once, in the dialog it came from: no second overlay stacked over it.
    await dialog.getByRole('status').filter({ hasText: 'Deleting files...' }).waitFor();
    expect(await page.getByRole('status').count()).toBe(1);
    await captureScreen(page, 'file-deleting');
    held.release();
    await toast(page, 'File deleted successfully').waitFor();
    await held.dispose();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('3 files found', { exact: true }).waitFor();
    expect(await shownFiles(page)).not.toContain(RT_DOSE);
  });

  test('bulk delete: select, confirm, all gone', async () => {
    const { page } = session;
    await page.getByRole('checkbox', { name: `Select ${CT_SMALL}` }).check();
    await page.getByText('(1 selected)', { exact: true }).waitFor();
    await page.getByRole('checkbox', { name: `Select ${FOLDER}` }).check();
    await page.getByText('(2 selected)', { exact: true }).waitFor();
    // Two of three selected: the select-all box shows a partial selection.
    expect(await page.getByRole('checkbox', { name: 'Select all files' }).evaluate((box: HTMLInputElement) => box.indeterminate)).toBe(true);
    await page.getByRole('button', { name: 'Delete Selected (2)' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm Bulk Delete' });
    await dialog
      .getByText('Are you sure you want to delete 2 selected file(s)? This action cannot be undone.', { exact: true })
      .waitFor();
    await captureScreen(page, 'bulk-delete-dialog');
    await dialog.getByRole('button', { name: 'Delete 2 Files' }).click();
    await toast(page, '2 files deleted successfully').waitFor();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('1 files found', { exact: true }).waitFor();
    expect(await shownFiles(page)).toEqual([ZIP]);
    await page.getByText('(0 selected)', { exact: true }).waitFor();

    // Select all, then cancel: nothing is deleted.
    await page.getByRole('checkbox', { name: 'Select all files' }).check();
    await page.getByText('(1 selected)', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete Selected (1)' }).click();
    await page.getByRole('dialog', { name: 'Confirm Bulk Delete' }).getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog', { name: 'Confirm Bulk Delete' }).waitFor({ state: 'detached' });
    expect(await shownFiles(page)).toEqual([ZIP]);
  });

  test('dark mode on the file screens', async () => {
    const { page } = session;
    await page.getByRole('button', { name: 'Colour mode: system. Switch to light' }).click();
    await page.getByRole('button', { name: 'Colour mode: light. Switch to dark' }).click();
    await page.getByRole('button', { name: 'Colour mode: dark. Switch to system' }).waitFor();
    await moveAwayFromTooltips(page);
    expect(await page.locator('html').getAttribute('data-color-scheme')).toBe('dark');
    await captureScreen(page, 'project-detail-files-dark');
    await page.getByRole('button', { name: `View contents of ${ZIP}` }).click();
    await page.getByRole('dialog', { name: `Contents of ${ZIP}` }).getByRole('cell', { name: CT_SERIES[0], exact: true }).waitFor();
    await captureScreen(page, 'file-contents-dark');
    await page.getByRole('button', { name: 'Close' }).click();
    const dialog = await openUploadDialog(page);
    await dialog.getByLabel('Select Files').setInputFiles([dicomPath(CT_SMALL)]);
    await dialog.getByText(new RegExp(`^${escapeRegExp('Selected files (1 of 1)')}$`)).waitFor();
    await captureScreen(page, 'upload-dialog-dark');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  test('a phone-sized screen (xs breakpoint): login, projects and files', async () => {
    const phone = { width: 390, height: 844 };
    const signedOut = await openSession(browser, portal.url, { viewport: phone });
    const signedIn = await openSession(browser, portal.url, { viewport: phone, storageState: await session.context.storageState() });
    try {
      await signedOut.page.goto('/');
      await signedOut.page.getByRole('button', { name: 'Log in' }).waitFor();
      // The side image is the second pane; on a phone only the form remains.
      await captureScreen(signedOut.page, 'login-phone');

      const { page } = signedIn;
      await page.goto('/home');
      await page.getByRole('link', { name: PROJECT, exact: true }).waitFor();
      await captureScreen(page, 'projects-phone');
      await page.goto(`/study/${projectId}`);
      // On a phone each file is a card, with its status and actions.
      const card = page.getByRole('list', { name: 'Project files' }).getByRole('listitem', { name: ZIP });
      await card.getByText('Ready', { exact: true }).waitFor();
      await card.getByRole('button', { name: `Download ${ZIP}` }).waitFor();
      await captureScreen(page, 'project-detail-phone');
      // Nothing may stick out sideways: wide tables scroll inside their own container.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBe(0);
      expect([...signedOut.pageErrors, ...signedIn.pageErrors]).toEqual([]);
    } finally {
      await signedOut.context.close();
      await signedIn.context.close();
    }
  });

  test('no screen threw an uncaught error', () => {
    expect(session.pageErrors).toEqual([]);
  });
});
