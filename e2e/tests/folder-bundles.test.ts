// Issue 14 item 3 in a real browser against the real server: a picked folder's small files travel
// packed in tar bundles (one tus upload for many files), files over 1 MiB alone, and the delivery
// still becomes one row whose contents list every file. The dialog keeps a row per file.
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Locator, Page, Request } from 'playwright-core';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { apiCreateProject, apiListFiles } from '../src/api.js';
import { captureScreen, launchBrowser, openSession, type Session } from '../src/browser.js';
import { CT_SERIES, dicomPath, makeCdExport, makeLargeTar, makeWorkspace, MR_SMALL, RT_DOSE, type Workspace } from '../src/files.js';
import { E2E_CHUNK_BYTES as CHUNK, startPortal, type Portal } from '../src/portal.js';
import { signInBehindRelay } from '../src/project-setup.js';
import { holdPatchAt, type Relay } from '../src/relay.js';
import { tearDownSuite } from '../src/suite.js';
import { eventually, fileRow, holdRequests, reloadAccepting, toast, uploadRow } from '../src/ui.js';

const USER = { username: 'rosalind', password: 'Phot0graph51!' };
const MiB = 1024 * 1024;
/** The scanner export: more than one chunk, so it goes alone in two PATCHes and a hold can stop it between them. */
// Just under two chunks: the PATCH held after the first carries more than loopback's sockets take (src/relay.ts).
const LARGE = 2 * CHUNK - MiB;

let portal: Portal;
/** Between the browser and the portal, to hold a tus PATCH on its way (src/relay.ts). */
let relay: Relay;
let browser: Browser;
let session: Session;
let workspace: Workspace;
let token: string;
let cdDir: string;
let cdImages: string[];
let mixedDir: string;

beforeAll(async () => {
  // The server announces the chunk: the browser asks it (GET /upload-settings) and cuts there.
  [portal, browser, workspace] = await Promise.all([startPortal({ UPLOAD_CHUNK_BYTES: String(CHUNK) }), launchBrowser(), makeWorkspace()]);
  cdDir = path.join(workspace.dir, 'CD');
  cdImages = await makeCdExport(cdDir, CT_SERIES);
  // Small DICOM files in subfolders beside a scanner export over one chunk: the export goes alone, in chunks.
  mixedDir = path.join(workspace.dir, 'Export');
  await mkdir(path.join(mixedDir, 'MR'), { recursive: true });
  await mkdir(path.join(mixedDir, 'RT'), { recursive: true });
  await copyFile(dicomPath(MR_SMALL), path.join(mixedDir, 'MR', 'IM0001'));
  await copyFile(dicomPath(RT_DOSE), path.join(mixedDir, 'RT', 'IM0001'));
  await copyFile(dicomPath(CT_SERIES[0]), path.join(mixedDir, 'RT', 'IM0002'));
  await makeLargeTar(path.join(mixedDir, 'scanner-export.tar'), LARGE);
  ({ session, relay, token } = await signInBehindRelay(portal, browser, { company: 'Franklin Imaging', user: { ...USER, firstname: 'Rosalind', lastname: 'Franklin' } }));
});

tearDownSuite(() => ({ session, browser, portal, others: [workspace, relay && { remove: () => relay.close() }] }));
afterEach(() => relay?.reset());

const listFiles = (projectId: number) => apiListFiles(portal.url, token, projectId);

/** A phone shows cards, not the table: the server says when the row is ready. */
async function processed(projectId: number): Promise<void> {
  await eventually(() => listFiles(projectId), (files) => files.length === 1 && files[0]?.processing.status === 'ready', 'the folder to be processed', 90_000);
}

async function openUploadDialog(page: Page, projectId: number, name: string): Promise<Locator> {
  await page.goto(`/study/${projectId}`);
  await page.getByRole('heading', { name, level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Upload Files/Folder' }).click();
  const dialog = page.getByRole('dialog', { name: 'Upload Files' });
  await dialog.waitFor();
  return dialog;
}

function decodeMetadata(header: string): Record<string, string> {
  return Object.fromEntries(
    header
      .split(',')
      .filter(Boolean)
      .map((pair) => {
        const [key = '', value = ''] = pair.trim().split(' ');
        return [key, Buffer.from(value, 'base64').toString()];
      }),
  );
}

/** Every tus request the page made, and the metadata of each upload it created. */
function recordTus(page: Page) {
  const requests: Array<{ method: string; path: string }> = [];
  const created: Array<Record<string, string>> = [];
  const onRequest = (request: Request) => {
    const url = new URL(request.url());
    if (!url.pathname.startsWith('/api/v1/uploads')) return;
    requests.push({ method: request.method(), path: url.pathname });
    if (request.method() === 'POST') created.push(decodeMetadata(request.headers()['upload-metadata'] ?? ''));
  };
  page.on('request', onRequest);
  return { requests, created, stop: () => page.off('request', onRequest) };
}

async function openContents(page: Page, name: string): Promise<Locator> {
  await page.getByRole('button', { name: `View contents of ${name}` }).click();
  const contents = page.getByRole('dialog', { name: `Contents of ${name}` });
  await contents.waitFor();
  return contents;
}

/** An entry of the contents dialog: a table cell on a desktop, a card of the list on a phone. */
function entry(contents: Locator, name: string | RegExp): Locator {
  const exact = typeof name === 'string';
  return contents
    .getByRole('table', { name: 'Entries' })
    .getByRole('cell', { name, exact })
    .or(contents.getByRole('list', { name: 'Entries' }).getByText(name, { exact }));
}

async function closeContents(contents: Locator): Promise<void> {
  await contents.getByRole('button', { name: 'Close' }).click();
  await contents.waitFor({ state: 'detached' });
}

describe('a folder of small files travels in bundles', () => {
  test('a CD export goes as one bundle of its delivery and is processed into one row listing every file', async () => {
    const { page } = session;
    const projectId = await apiCreateProject(portal.url, token, 'Bundled CD');
    const dialog = await openUploadDialog(page, projectId, 'Bundled CD');
    await dialog.getByLabel('Select Folder').setInputFiles(cdDir);
    await dialog.getByText('Selected files (6 of 6)', { exact: true }).waitFor();

    const tus = recordTus(page);
    // The bundle goes with its creation: held there, its six files show as one upload on its way.
    const held = await holdRequests(page, (url, method) => method === 'POST' && url.pathname === '/api/v1/uploads');
    await dialog.getByRole('button', { name: 'Upload Files' }).click();
    await held.arrived;
    for (const name of ['CD/DICOMDIR', ...cdImages.map((image) => `CD/DICOM/ST000001/SE000001/${image}`)]) {
      const row = uploadRow(dialog, name);
      await row.getByText('Uploading', { exact: true }).waitFor();
      await row.getByText(/ · in a bundle of 6 files$/).waitFor();
    }
    await dialog.getByText(/^0 of 6 files · /).waitFor();
    await captureScreen(page, 'upload-bundles-cd-uploading');
    held.release();
    await toast(page, 'Files uploaded successfully').waitFor({ timeout: 60_000 });
    await held.dispose();
    tus.stop();
    // Six files, one upload: the bundle, marked as a tar of the delivery, its members named inside it.
    expect(tus.created).toHaveLength(1);
    expect(tus.created[0]).toMatchObject({ bundle: 'tar', filename: 'bundle.tar' });
    expect(tus.created[0]?.relativePath).toBeUndefined();
    expect(tus.requests.length).toBeLessThan(6);

    await dialog.waitFor({ state: 'detached' });
    const row = fileRow(page, 'CD');
    await row.getByRole('img', { name: 'Folder' }).waitFor();
    await row.getByText('Ready', { exact: true }).waitFor({ timeout: 60_000 });
    expect((await listFiles(projectId)).map((f) => [f.file, f.kind])).toEqual([['CD', 'folder']]);

    const contents = await openContents(page, 'CD');
    const entries = contents.getByRole('table', { name: 'Entries' });
    await entries.getByRole('cell', { name: 'DICOMDIR', exact: true }).waitFor();
    for (const image of cdImages) await entries.getByRole('cell', { name: `DICOM/ST000001/SE000001/${image}`, exact: true }).waitFor();
    await closeContents(contents);
  });

  test('a reload mid-way, then the same folder picked again, goes on in the same delivery: what arrived is not sent again, the export resumes', async () => {
    const { page } = session;
    const projectId = await apiCreateProject(portal.url, token, 'Resumed folder');
    let dialog = await openUploadDialog(page, projectId, 'Resumed folder');
    await dialog.getByLabel('Select Folder').setInputFiles(mixedDir);
    await dialog.getByText('Selected files (4 of 4)', { exact: true }).waitFor();
    const tus = recordTus(page);
    const held = holdPatchAt(relay, CHUNK);
    await dialog.getByRole('button', { name: 'Upload Files' }).click();
    await held.arrived;
    await uploadRow(dialog, 'Export/RT/IM0002').getByText('Uploaded', { exact: true }).waitFor();

    // Leaving asks first; accepted, as the user would.
    expect(await reloadAccepting(page)).toEqual(['beforeunload']);
    held.release();
    await held.dispose();
    await page.getByRole('heading', { name: 'Resumed folder', level: 1 }).waitFor();
    expect(await listFiles(projectId)).toEqual([]);
    const createdBefore = tus.created.length;
    expect(createdBefore).toBe(2);

    dialog = await openUploadDialog(page, projectId, 'Resumed folder');
    await dialog.getByLabel('Select Folder').setInputFiles(mixedDir);
    await dialog.getByText('Selected files (4 of 4)', { exact: true }).waitFor();
    const resumeHeld = holdPatchAt(relay, CHUNK);
    await dialog.getByRole('button', { name: 'Upload Files' }).click();
    await resumeHeld.arrived;
    for (const small of ['Export/MR/IM0001', 'Export/RT/IM0001', 'Export/RT/IM0002']) await uploadRow(dialog, small).getByText(/already on the server/).waitFor();
    await uploadRow(dialog, 'Export/scanner-export.tar').getByText(/resumed where the server stopped/).waitFor();
    await dialog.getByText(/^3 of 4 files · /).waitFor();
    await captureScreen(page, 'upload-bundles-resumed');
    resumeHeld.release();
    await toast(page, 'Files uploaded successfully').waitFor({ timeout: 60_000 });
    await resumeHeld.dispose();
    tus.stop();
    // Nothing was created anew: the bundle had arrived, the export went on where the server had it.
    expect(tus.created).toHaveLength(createdBefore);
    expect(tus.requests.filter((r) => r.method === 'HEAD')).toHaveLength(1);

    await processed(projectId);
    expect((await listFiles(projectId)).map((f) => [f.file, f.kind])).toEqual([['Export', 'folder']]);
    await page.reload();
    const contents = await openContents(page, 'Export');
    for (const name of ['MR/IM0001', 'RT/IM0001', 'RT/IM0002']) await entry(contents, name).waitFor();
    await entry(contents, /^scanner-export\.tar/).first().waitFor();
    await closeContents(contents);
  });

  for (const screen of [
    { name: 'desktop', viewport: { width: 1280, height: 800 }, prefix: 'upload-bundles' },
    { name: 'phone', viewport: { width: 390, height: 844 }, prefix: 'phone-upload-bundles' },
    { name: 'dark', viewport: { width: 1280, height: 800 }, prefix: 'dark-upload-bundles', dark: true },
  ]) {
    test(`a folder mixing a file over 1 MiB and small files: the small ones in a bundle, the large one alone (${screen.name})`, async () => {
      const projectId = await apiCreateProject(portal.url, token, `Mixed export ${screen.name}`);
      const view = await openSession(browser, relay.url, { viewport: screen.viewport, storageState: await session.context.storageState() });
      try {
        const { page } = view;
        if (screen.dark === true) await view.context.addInitScript(() => localStorage.setItem('mode', 'dark'));
        const dialog = await openUploadDialog(page, projectId, `Mixed export ${screen.name}`);
        if (screen.dark === true) expect(await page.locator('html').getAttribute('data-color-scheme')).toBe('dark');
        await dialog.getByLabel('Select Folder').setInputFiles(mixedDir);
        await dialog.getByText('Selected files (4 of 4)', { exact: true }).waitFor();

        const tus = recordTus(page);
        // The export stands still after its first chunk; the bundle of small files arrives meanwhile.
        const held = holdPatchAt(relay, CHUNK);
        await dialog.getByRole('button', { name: 'Upload Files' }).click();
        await held.arrived;
        for (const small of ['Export/MR/IM0001', 'Export/RT/IM0001', 'Export/RT/IM0002']) await uploadRow(dialog, small).getByText('Uploaded', { exact: true }).waitFor();
        const large = uploadRow(dialog, 'Export/scanner-export.tar');
        await large.getByText('Uploading', { exact: true }).waitFor();
        await large.getByText(new RegExp(`MB of ${LARGE / MiB}\\.\\d\\d MB$`)).waitFor();
        await dialog.getByText(/^3 of 4 files · /).waitFor();
        await captureScreen(page, `${screen.prefix}-uploading`);

        held.release();
        await toast(page, 'Files uploaded successfully').waitFor({ timeout: 60_000 });
        await held.dispose();
        tus.stop();
        expect(tus.created.map((m) => m.bundle ?? m.relativePath).sort()).toEqual(['scanner-export.tar', 'tar']);
        const bundle = tus.created.find((m) => m.bundle === 'tar');
        const alone = tus.created.find((m) => m.relativePath === 'scanner-export.tar');
        expect(bundle?.delivery).toBe(alone?.delivery);

        // Spec §4: the dialog closes after a successful upload; its last state is looked at first.
        await dialog.waitFor({ state: 'detached' });
        await processed(projectId);
        expect((await listFiles(projectId)).map((f) => [f.file, f.kind])).toEqual([['Export', 'folder']]);
        // Read again, the list shows the delivery processed: otherwise its chip may turn from Processing
        // to Ready while the contents are captured, colours fading, which axe must not catch half-way.
        await page.reload();
        const contents = await openContents(page, 'Export');
        for (const name of ['MR/IM0001', 'RT/IM0001', 'RT/IM0002']) await entry(contents, name).waitFor();
        await entry(contents, /^scanner-export\.tar/).first().waitFor();
        await contents.getByText('Ready', { exact: true }).waitFor();
        await captureScreen(page, `${screen.prefix}-contents`);
        await closeContents(contents);
      } finally {
        await view.context.close();
      }
    });

    test(`a file of a folder cancelled on its way is left out; the dialog keeps a row per file with its outcome (${screen.name})`, async () => {
      const projectId = await apiCreateProject(portal.url, token, `Left out ${screen.name}`);
      const view = await openSession(browser, relay.url, { viewport: screen.viewport, storageState: await session.context.storageState() });
      try {
        const { page } = view;
        if (screen.dark === true) await view.context.addInitScript(() => localStorage.setItem('mode', 'dark'));
        const dialog = await openUploadDialog(page, projectId, `Left out ${screen.name}`);
        await dialog.getByLabel('Select Folder').setInputFiles(mixedDir);
        await dialog.getByText('Selected files (4 of 4)', { exact: true }).waitFor();
        const held = holdPatchAt(relay, CHUNK);
        await dialog.getByRole('button', { name: 'Upload Files' }).click();
        await held.arrived;
        await uploadRow(dialog, 'Export/RT/IM0002').getByText('Uploaded', { exact: true }).waitFor();
        // Leaving the export out: the folder is delivered without it.
        await dialog.getByRole('button', { name: 'Cancel Export/scanner-export.tar' }).click();
        held.release();
        await held.dispose();
        await uploadRow(dialog, 'Export/scanner-export.tar').getByText('Cancelled', { exact: true }).waitFor();
        await dialog.getByText('Selected files (0 of 4)', { exact: true }).waitFor();
        // The upload is over once the delivery is complete: the pickers come back.
        await eventually(() => dialog.locator('button').filter({ hasText: 'Select Folder' }).isEnabled(), (enabled) => enabled, 'the upload to end');
        await captureScreen(page, `${screen.prefix}-after`);
        await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
        await dialog.waitFor({ state: 'detached' });
        await processed(projectId);
        await page.reload();
        const contents = await openContents(page, 'Export');
        await entry(contents, 'RT/IM0002').waitFor();
        expect(await entry(contents, /^scanner-export\.tar/).count()).toBe(0);
        await closeContents(contents);
      } finally {
        await view.context.close();
      }
    });
  }
});
