// Issue 36 item 1 in a real browser: an upload goes on while the user moves around the portal
// (Back out of the project, another project, its studies), the tray shows it, a reload asks first,
// and afterwards the tray lists it and resumes it from the server's offset when the file is picked again.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { apiCreateProject, apiListFiles } from '../src/api.js';
import { captureScreen, captureScreenInDark, launchBrowser, type Session } from '../src/browser.js';
import { CT_SMALL, dicomPath, makeLargeTar, makeWorkspace, MR_SMALL, sha256, type Workspace } from '../src/files.js';
import { E2E_CHUNK_BYTES as CHUNK, startPortal, type Portal } from '../src/portal.js';
import { signInBehindRelay } from '../src/project-setup.js';
import { holdPatchAt, type Relay } from '../src/relay.js';
import { tearDownSuite } from '../src/suite.js';
import { openAccountMenu, reloadAccepting, toast, uploadRow, waitForPath } from '../src/ui.js';

const USER = { username: 'lise', password: 'F1ssion!Meitner' };
const MiB = 1024 * 1024;

let portal: Portal;
let relay: Relay;
let browser: Browser;
let session: Session;
let workspace: Workspace;
let token: string;
let bigTar: string;

beforeAll(async () => {
  [portal, browser, workspace] = await Promise.all([startPortal({ UPLOAD_CHUNK_BYTES: String(CHUNK) }), launchBrowser(), makeWorkspace()]);
  // Just under two chunks: the PATCH held after the first carries more than loopback's sockets take (src/relay.ts).
  bigTar = await makeLargeTar(path.join(workspace.dir, 'tray-export.tar'), 2 * CHUNK - MiB);
  ({ session, relay, token } = await signInBehindRelay(portal, browser, { company: 'Meitner Imaging', user: { ...USER, firstname: 'Lise', lastname: 'Meitner' } }));
});

tearDownSuite(() => ({ session, browser, portal, others: [workspace, relay && { remove: () => relay.close() }] }));
afterEach(() => relay?.reset());

const tray = (page: Page) => page.getByRole('region', { name: 'Uploads' });

async function openFromList(page: Page, name: string): Promise<void> {
  await page.getByRole('table', { name: 'Projects' }).getByRole('link', { name }).click();
  await page.getByRole('heading', { name, level: 1 }).waitFor();
}

describe('the uploads tray', () => {
  test('an upload goes on across the portal, a reload asks first, and the tray resumes it from the server’s offset', async () => {
    const { page } = session;
    const projectId = await apiCreateProject(portal.url, token, 'Tray export');
    await apiCreateProject(portal.url, token, 'Other study');
    await page.goto('/home');
    await openFromList(page, 'Tray export');

    await page.getByRole('button', { name: 'Upload Files/Folder' }).click();
    const dialog = page.getByRole('dialog', { name: 'Upload Files' });
    await dialog.getByLabel('Select Files').setInputFiles(bigTar);
    const patchedBefore = relay.patched.length;
    // The server takes the first chunk; the second stands still on its way while the user moves around.
    const held = holdPatchAt(relay, CHUNK);
    await dialog.getByRole('button', { name: 'Upload Files' }).click();
    await held.arrived;
    await uploadRow(dialog, 'tray-export.tar').getByText('Uploading', { exact: true }).waitFor();

    // The browser's Back inside the app leaves the project: the upload is not stopped, the tray takes it.
    await page.goBack();
    await waitForPath(page, '/home');
    await tray(page).getByText('Uploading · 1 file left').waitFor();
    await tray(page).getByRole('heading', { name: 'Tray export' }).waitFor();
    await tray(page).getByRole('progressbar', { name: 'Progress of tray-export.tar' }).waitFor();
    await captureScreen(page, 'upload-tray-uploading');
    await captureScreenInDark(page, 'upload-tray-uploading');

    // Signing out would stop it: the portal asks first, and keeping on leaves it going.
    await (await openAccountMenu(page, 'Lise Meitner')).getByRole('menuitem', { name: 'Logout' }).click();
    const asked = page.getByRole('dialog', { name: 'Sign out while uploading?' });
    await asked.getByText('What has reached the server is kept').waitFor();
    await captureScreen(page, 'upload-tray-sign-out-asks');
    await asked.getByRole('button', { name: 'Keep Uploading' }).click();
    await asked.waitFor({ state: 'hidden' });
    expect(page.url()).toMatch(/\/home$/);
    await tray(page).getByText('Uploading · 1 file left').waitFor();

    await openFromList(page, 'Other study');
    await page.getByRole('tab', { name: 'Studies' }).click();
    expect(await page.getByRole('tab', { name: 'Studies' }).getAttribute('aria-selected')).toBe('true');
    await tray(page).getByText('Uploading · 1 file left').waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await captureScreen(page, 'phone-upload-tray-uploading');
    await page.setViewportSize({ width: 1280, height: 800 });

    // Leaving the portal while bytes are on their way asks first.
    expect(await reloadAccepting(page)).toEqual(['beforeunload']);
    held.release();
    await held.dispose();
    await page.getByRole('heading', { name: 'Other study', level: 1 }).waitFor();
    expect(await apiListFiles(portal.url, token, projectId)).toEqual([]);

    // After the reload the tray lists what did not finish, and asks for the same file again.
    const unfinished = tray(page).getByRole('list', { name: 'Unfinished uploads' });
    await unfinished.getByText('tray-export.tar').waitFor();
    await unfinished.getByText(/^Tray export · 127\.\d\d MB · \d+% sent$/).waitFor();
    await tray(page).getByText('Uploads to resume').waitFor();
    await captureScreen(page, 'upload-tray-after-reload');
    await page.setViewportSize({ width: 390, height: 844 });
    await captureScreen(page, 'phone-upload-tray-after-reload');
    await page.setViewportSize({ width: 1280, height: 800 });

    await tray(page).getByLabel('Pick files to resume').setInputFiles(bigTar);
    await tray(page).getByText(/^Uploaded · 127\.\d\d MB/).waitFor({ timeout: 120_000 });
    await tray(page).getByText('Uploads finished').waitFor();
    expect(await unfinished.count()).toBe(0);

    const received = relay.patched.slice(patchedBefore);
    const { size } = await stat(bigTar);
    // The resume started where the server stood: the first chunk was not sent again.
    expect(received.map((r) => r.offset)).toEqual([0, CHUNK]);
    const afterReload = received.filter((r) => r.offset === CHUNK).reduce((sum, r) => sum + r.bytes, 0);
    expect(afterReload).toBeLessThan(size);
    expect(received.reduce((sum, r) => sum + r.bytes, 0)).toBe(size);
    const [stored] = await apiListFiles(portal.url, token, projectId);
    expect(stored?.sha256).toBe(await sha256(bigTar));

    await tray(page).getByRole('button', { name: 'Close the uploads tray' }).click();
    await tray(page).waitFor({ state: 'detached' });
  });

  test('a file the project holds already is shown before sending, skipped, and the dialog stays open after the rest arrives', async () => {
    const { page } = session;
    const projectId = await apiCreateProject(portal.url, token, 'Repeat scans');
    await page.goto(`/study/${projectId}`);
    await page.getByRole('heading', { name: 'Repeat scans', level: 1 }).waitFor();
    const dialog = page.getByRole('dialog', { name: 'Upload Files' });
    await page.getByRole('button', { name: 'Upload Files/Folder' }).click();
    await dialog.getByLabel('Select Files').setInputFiles(dicomPath(CT_SMALL));
    await dialog.getByRole('button', { name: 'Upload Files' }).click();
    await dialog.waitFor({ state: 'detached' });
    await toast(page, 'Files uploaded successfully').waitFor();
    // Gone before the second upload, whose own toast is looked for below.
    await toast(page, 'Files uploaded successfully').waitFor({ state: 'detached', timeout: 15_000 });

    await page.getByRole('button', { name: 'Upload Files/Folder' }).click();
    await dialog.getByLabel('Select Files').setInputFiles([dicomPath(CT_SMALL), dicomPath(MR_SMALL)]);
    const patchedBefore = relay.patched.length;
    await dialog.getByRole('button', { name: 'Upload Files' }).click();
    const notice = dialog.getByTestId('duplicates-notice');
    await notice.getByText('1 file is already in this project').waitFor();
    await notice.getByText(CT_SMALL, { exact: true }).waitFor();
    expect(await notice.getByRole('button', { name: 'Skip' }).getAttribute('aria-pressed')).toBe('true');
    await dialog.getByText('Selected files (1 of 2)').waitFor();
    // Nothing was sent while the question was asked.
    expect(relay.patched.length).toBe(patchedBefore);
    await captureScreen(page, 'upload-duplicates-before-sending');
    await captureScreenInDark(page, 'upload-duplicates-before-sending');

    await dialog.getByRole('button', { name: 'Upload Files' }).click();
    await uploadRow(dialog, MR_SMALL).getByText('Uploaded', { exact: true }).waitFor({ timeout: 60_000 });
    await toast(page, 'Files uploaded successfully').waitFor();
    // The skipped file is still on screen: the dialog does not close on a partial success.
    expect(await dialog.isVisible()).toBe(true);
    expect((await apiListFiles(portal.url, token, projectId)).map((f) => f.file).sort()).toEqual([CT_SMALL, MR_SMALL].sort());
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });
});
