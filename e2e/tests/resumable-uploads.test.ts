// Issue 13 in a real browser against the real tus endpoint: a CD export accepted by content and
// processed, a 300 MB upload cancelled without a trace, a reload mid-upload resumed from where the
// server stood, and a partial failure that names the file and leaves only the rest to send.
import { readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Locator, Page, Request, Response } from 'playwright-core';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { apiCreateProject, apiListFiles } from '../src/api.js';
import { captureScreen, launchBrowser, openSession, type Session } from '../src/browser.js';
import { CT_SERIES, CT_SMALL, dicomPath, DICOM_DIR, makeCdExport, makeLargeTar, makeWorkspace, makeZip, sha256, type Workspace } from '../src/files.js';
import { E2E_CHUNK_BYTES as CHUNK, startPortal, type Portal } from '../src/portal.js';
import { signInBehindRelay } from '../src/project-setup.js';
import { holdPatchAt, type Relay } from '../src/relay.js';
import { tearDownSuite } from '../src/suite.js';
import { eventually, fileRow, reloadAccepting, toast, uploadRow } from '../src/ui.js';

const USER = { username: 'marie', password: 'R4dium!Polonium' };
const MiB = 1024 * 1024;

let portal: Portal;
/** Between the browser and the portal, to hold a tus PATCH on its way (src/relay.ts). */
let relay: Relay;
let browser: Browser;
let session: Session;
let workspace: Workspace;
let token: string;
let cdDir: string;
let cdImages: string[];
let bigTar: string;
let resumeTar: string;
let goodZip: string;
let fakeZip: string;

beforeAll(async () => {
  // The server announces the chunk: the browser asks it (GET /upload-settings) and cuts there.
  [portal, browser, workspace] = await Promise.all([startPortal({ UPLOAD_CHUNK_BYTES: String(CHUNK) }), launchBrowser(), makeWorkspace()]);
  cdDir = path.join(workspace.dir, 'CD');
  cdImages = await makeCdExport(cdDir, CT_SERIES);
  bigTar = await makeLargeTar(path.join(workspace.dir, 'scanner-export.tar'), 300 * MiB);
  // Just under two chunks: the PATCH held after the first carries more than loopback's sockets take (src/relay.ts).
  resumeTar = await makeLargeTar(path.join(workspace.dir, 'resume-me.tar'), 2 * CHUNK - MiB);
  goodZip = await makeZip(path.join(workspace.dir, 'series.zip'), DICOM_DIR, CT_SERIES.slice(0, 2));
  fakeZip = path.join(workspace.dir, 'report.zip');
  await writeFile(fakeZip, 'This is a text report, not a ZIP archive.\n'.repeat(20));
  ({ session, relay, token } = await signInBehindRelay(portal, browser, { company: 'Curie Radiology', user: { ...USER, firstname: 'Marie', lastname: 'Curie' } }));
});

tearDownSuite(() => ({ session, browser, portal, others: [workspace, relay && { remove: () => relay.close() }] }));
afterEach(() => relay?.reset());

async function newProject(name: string): Promise<number> {
  return apiCreateProject(portal.url, token, name);
}

const listFiles = (projectId: number) => apiListFiles(portal.url, token, projectId);

/** What the server holds of unfinished tus uploads (its file store under DATA_DIR/tus). */
async function tusArea(): Promise<string[]> {
  return readdir(path.join(portal.dataDir, 'tus')).catch(() => []);
}

async function openProject(page: Page, projectId: number, name: string): Promise<void> {
  await page.goto(`/study/${projectId}`);
  await page.getByRole('heading', { name, level: 1 }).waitFor();
}

async function openUploadDialog(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Upload Files/Folder' }).click();
  const dialog = page.getByRole('dialog', { name: 'Upload Files' });
  await dialog.waitFor();
  return dialog;
}

describe('resumable uploads', () => {
  test('a CD export (DICOMDIR and extensionless images in subfolders) is accepted by content and processed', async () => {
    const { page } = session;
    const projectId = await newProject('Patient CD');
    await openProject(page, projectId, 'Patient CD');
    const dialog = await openUploadDialog(page);
    await dialog.getByLabel('Select Folder').setInputFiles(cdDir);
    await dialog
      .getByText('Folder "CD": 7 files in total, 6 DICOM files, 0 compressed files. Left out: CD/README.TXT: not an archive or DICOM', { exact: true })
      .waitFor();
    await dialog.getByText('Selected files (6 of 6)', { exact: true }).waitFor();
    await dialog.getByRole('checkbox', { name: 'CD/DICOMDIR' }).waitFor();
    await dialog.getByRole('checkbox', { name: `CD/DICOM/ST000001/SE000001/${cdImages[0]}` }).waitFor();
    await captureScreen(page, 'upload-cd-picked');

    await dialog.getByRole('button', { name: 'Upload Files' }).click();
    await toast(page, 'Files uploaded successfully').waitFor({ timeout: 60_000 });
    await dialog.waitFor({ state: 'detached' });
    // The folder arrives as one delivery: one row named after it, shown as a folder, processed to ready.
    await page.getByText('1 files found', { exact: true }).waitFor();
    const row = fileRow(page, 'CD');
    await row.getByRole('img', { name: 'Folder' }).waitFor();
    await row.getByText('Ready', { exact: true }).waitFor({ timeout: 60_000 });
    const listed = await listFiles(projectId);
    expect(listed.map((f) => [f.file, f.kind])).toEqual([['CD', 'folder']]);

    // Its contents list every kept file by its path inside the folder, subfolders included.
    await page.getByRole('button', { name: 'View contents of CD' }).click();
    const contents = page.getByRole('dialog', { name: 'Contents of CD' });
    const entries = contents.getByRole('table', { name: 'Entries' });
    await entries.getByRole('cell', { name: 'DICOMDIR', exact: true }).waitFor();
    for (const image of cdImages) await entries.getByRole('cell', { name: `DICOM/ST000001/SE000001/${image}`, exact: true }).waitFor();
    await captureScreen(page, 'upload-cd-contents');
    await contents.getByRole('button', { name: 'Close' }).click();
    await contents.waitFor({ state: 'detached' });
    expect(await tusArea()).toEqual([]);
  });

  test('a 300 MB upload cancelled mid-way leaves nothing on the server', async () => {
    const { page } = session;
    const projectId = await newProject('Cancelled export');
    await openProject(page, projectId, 'Cancelled export');
    const dialog = await openUploadDialog(page);
    await dialog.getByLabel('Select Files').setInputFiles(bigTar);
    await dialog.getByText('Selected files (1 of 1)', { exact: true }).waitFor();

    let uploadUrl = '';
    const onResponse = (response: Response) => {
      if (response.request().method() === 'POST' && new URL(response.url()).pathname === '/api/v1/uploads') uploadUrl = new URL(response.headers().location ?? '', portal.url).pathname;
    };
    page.on('response', onResponse);
    const held = holdPatchAt(relay, 2 * CHUNK);
    await dialog.getByRole('button', { name: 'Upload Files' }).click();
    await held.arrived;
    const row = uploadRow(dialog, 'scanner-export.tar');
    await row.getByText('Uploading', { exact: true }).waitFor();
    await dialog.getByText(/^0 of 1 files · /).waitFor();
    await dialog.getByText(/^Uploading files\.\.\. \d+%$/).waitFor();
    // The server holds the first two chunks; this is the state a user cancels in.
    await eventually(tusArea, (files) => files.length > 0, 'the upload to reach the server');
    await captureScreen(page, 'upload-uploading-large');

    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await row.getByText('Cancelled', { exact: true }).waitFor();
    held.release();
    await held.dispose();
    await eventually(tusArea, (files) => files.length === 0, "the server's upload area to be empty");
    const head = await fetch(`${portal.url}${uploadUrl}`, { method: 'HEAD', headers: { authorization: `Bearer ${token}`, 'tus-resumable': '1.0.0' } });
    expect(uploadUrl).toMatch(/^\/api\/v1\/uploads\//);
    expect(head.status).toBe(404);
    expect(await listFiles(projectId)).toEqual([]);
    // The page forgets the upload once the server's answer to its removal is in.
    await eventually(() => page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('tus::'))), (keys) => keys.length === 0, 'the resume entry to be forgotten');
    page.off('response', onResponse);
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('0 files found', { exact: true }).waitFor();
  });

  test('a reload mid-upload, then the same file picked again, resumes where the server stood', async () => {
    const { page } = session;
    const projectId = await newProject('Resumed export');
    await openProject(page, projectId, 'Resumed export');
    let dialog = await openUploadDialog(page);
    await dialog.getByLabel('Select Files').setInputFiles(resumeTar);

    // Bytes the server received: the bodies of PATCH requests that it answered.
    const patchedBefore = relay.patched.length;
    // The file is just under two chunks: the server holds the first one when the page goes.
    expect(CHUNK).toBeLessThan((await stat(resumeTar)).size);
    const held = holdPatchAt(relay, CHUNK);
    await dialog.getByRole('button', { name: 'Upload Files' }).click();
    await held.arrived;
    await uploadRow(dialog, 'resume-me.tar').getByText('Uploading', { exact: true }).waitFor();

    // Leaving asks first: Chromium shows the beforeunload prompt, accepted here as the user would.
    expect(await reloadAccepting(page)).toEqual(['beforeunload']);
    held.release();
    await held.dispose();
    await page.getByRole('heading', { name: 'Resumed export', level: 1 }).waitFor();
    expect(await listFiles(projectId)).toEqual([]);

    dialog = await openUploadDialog(page);
    await dialog.getByLabel('Select Files').setInputFiles(resumeTar);
    const resumeHeld = holdPatchAt(relay, CHUNK);
    await dialog.getByRole('button', { name: 'Upload Files' }).click();
    await resumeHeld.arrived;
    const row = uploadRow(dialog, 'resume-me.tar');
    await row.getByText(/resumed where the server stopped/).waitFor();
    await captureScreen(page, 'upload-resumed');
    resumeHeld.release();
    await toast(page, 'Files uploaded successfully').waitFor({ timeout: 60_000 });
    await resumeHeld.dispose();
    const received = relay.patched.slice(patchedBefore);

    const { size } = await stat(resumeTar);
    const total = received.reduce((sum, r) => sum + r.bytes, 0);
    expect(total).toBeLessThan(2 * size);
    // Nothing before the held chunk was sent twice: the resumed session started at the server's offset.
    expect(received.map((r) => r.offset)).toEqual([0, CHUNK]);
    expect(total).toBe(size);
    const [stored] = await listFiles(projectId);
    expect(stored?.sha256).toBe(await sha256(resumeTar));
  });

  test('a partial failure names the file, and a second press sends only what did not arrive', async () => {
    const { page } = session;
    const projectId = await newProject('Partial failure');
    await openProject(page, projectId, 'Partial failure');
    const dialog = await openUploadDialog(page);
    await dialog.getByLabel('Select Files').setInputFiles([goodZip, fakeZip, dicomPath(CT_SMALL)]);
    await dialog.getByText('Selected files (3 of 3)', { exact: true }).waitFor();
    const created: string[] = [];
    const onRequest = (request: Request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/v1/uploads') created.push(request.headers()['upload-metadata'] ?? '');
    };
    page.on('request', onRequest);

    await dialog.getByRole('button', { name: 'Upload Files' }).click();
    const alert = dialog.getByRole('alert');
    await alert.getByText('1 of 3 files were not uploaded', { exact: true }).waitFor({ timeout: 60_000 });
    // The server's words, not 'Error 415' (issue 36).
    await alert.getByText(/^report\.zip: (?!Error \d)\S/).waitFor();
    await dialog.getByText('Selected files (1 of 3)', { exact: true }).waitFor();
    expect(await dialog.getByRole('checkbox', { name: 'series.zip' }).isChecked()).toBe(false);
    expect(await dialog.getByRole('checkbox', { name: CT_SMALL }).isChecked()).toBe(false);
    expect(await dialog.getByRole('checkbox', { name: 'report.zip' }).isChecked()).toBe(true);
    await uploadRow(dialog, 'series.zip').getByText('Uploaded', { exact: true }).waitFor();
    await uploadRow(dialog, 'report.zip').getByText('Failed', { exact: true }).waitFor();
    await page.getByText('2 files found', { exact: true }).waitFor();
    await captureScreen(page, 'upload-partial-failure');
    expect(created).toHaveLength(3);

    // The second press sends report.zip alone (refused again, as its content has not changed); the
    // files that arrived are not sent twice.
    await dialog.getByRole('button', { name: 'Upload Files' }).click();
    await alert.getByText('1 of 1 file was not uploaded', { exact: true }).waitFor({ timeout: 60_000 });
    expect(created).toHaveLength(4);
    expect(Buffer.from((created[3]?.split(',').find((p) => p.startsWith('filename ')) ?? '').slice(9), 'base64').toString()).toBe('report.zip');
    expect((await listFiles(projectId)).map((f) => f.file).sort()).toEqual([CT_SMALL, 'series.zip']);
    page.off('request', onRequest);
  });
});

describe('the upload dialog on a phone', () => {
  test('picking, uploading with rows, a resume after a reload and a failure fit a 390 px screen', async () => {
    const projectId = await newProject('Phone uploads');
    const phone = await openSession(browser, relay.url, { viewport: { width: 390, height: 844 }, storageState: await session.context.storageState() });
    try {
      const { page } = phone;
      await openProject(page, projectId, 'Phone uploads');
      let dialog = await openUploadDialog(page);
      await dialog.getByLabel('Select Folder').setInputFiles(cdDir);
      await dialog.getByLabel('Select Files').setInputFiles(resumeTar);
      await dialog.getByText('Selected files (7 of 7)', { exact: true }).waitFor();
      await captureScreen(page, 'phone-upload-picked');

      // The CD's small files arrive; the tar stands still after its first chunk.
      const held = holdPatchAt(relay, CHUNK);
      await dialog.getByRole('button', { name: 'Upload Files' }).click();
      await held.arrived;
      await uploadRow(dialog, 'CD/DICOMDIR').getByText('Uploaded', { exact: true }).waitFor();
      await uploadRow(dialog, 'resume-me.tar').getByText('Uploading', { exact: true }).waitFor();
      await dialog.getByText(/^6 of 7 files · /).waitFor();
      await captureScreen(page, 'phone-upload-uploading');

      await reloadAccepting(page);
      held.release();
      await held.dispose();
      await page.getByRole('heading', { name: 'Phone uploads', level: 1 }).waitFor();

      dialog = await openUploadDialog(page);
      await dialog.getByLabel('Select Files').setInputFiles([resumeTar, fakeZip]);
      const resumeHeld = holdPatchAt(relay, CHUNK);
      await dialog.getByRole('button', { name: 'Upload Files' }).click();
      await resumeHeld.arrived;
      await uploadRow(dialog, 'resume-me.tar').getByText(/resumed where the server stopped/).waitFor();
      await uploadRow(dialog, 'report.zip').getByText('Failed', { exact: true }).waitFor();
      await captureScreen(page, 'phone-upload-resumed');
      resumeHeld.release();
      await dialog.getByRole('alert').getByText('1 of 2 files were not uploaded', { exact: true }).waitFor({ timeout: 60_000 });
      await resumeHeld.dispose();
      await uploadRow(dialog, 'resume-me.tar').getByText('Uploaded', { exact: true }).waitFor();
      await captureScreen(page, 'phone-upload-failure');
      expect((await listFiles(projectId)).map((f) => f.file)).toContain('resume-me.tar');
    } finally {
      await phone.context.close();
    }
  });
});
