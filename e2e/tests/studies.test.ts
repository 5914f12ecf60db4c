// The project's studies (issue 14 item 5) with their series' thumbnails (issue 34 item 3) and the
// contents dialog (items 4 and 8): two uploads
// sharing one study, a zip and a folder sent as one delivery, show that study once with both as
// its sources; its series, search and sort by the server, the view kept in the address, the phone
// layout; the contents dialog says why entries were set apart before listing them, and an entry
// downloads byte for byte.
import { copyFile, mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { captureScreen, launchBrowser, moveAwayFromTooltips, openSession, type Session } from '../src/browser.js';
import { CT_SERIES, dicomPath, makeWorkspace, makeZip, MR_SMALL, sha256, type Workspace } from '../src/files.js';
import { startPortal, type Portal } from '../src/portal.js';
import { signInWithProject } from '../src/project-setup.js';
import { tearDownSuite } from '../src/suite.js';
import { fileRow, toast } from '../src/ui.js';

const USER = { username: 'marie', password: 'Curi3!Radium' };
const PROJECT = 'Spine and chest';
const ZIP = 'first.zip';
const FOLDER = 'second';
/** A chest CT of Doe^Peter and a spine X-ray of Doe^Archibald, both dated 2001-01-01. */
const CR_SPINE = 's15_CR_6154';
const [S03, S04, S05, S06, S07] = CT_SERIES;
const PETER = 'Doe, Peter';
const ARCHIBALD = 'Doe, Archibald';
const MR1 = 'CompressedSamples, MR1';
/** Answers come from the real server on a loaded machine: a second is not always enough. */
const POLL = { timeout: 15_000 };

let portal: Portal;
let browser: Browser;
let session: Session;
let workspace: Workspace;
let projectId: number;
let zipPath: string;
let folderPath: string;

/**
 * first.zip: three of the five CT instances, the spine X-ray, the third CT instance again under
 * another folder (a duplicate in the same upload) and a symbolic link (skipped as unsafe).
 * second/: the last three CT instances (one of them also in first.zip) and an MR image.
 */
async function makeUploads(dir: string): Promise<void> {
  const zipSource = path.join(dir, 'zip-source');
  await mkdir(path.join(zipSource, 'copy'), { recursive: true });
  for (const name of [S03, S04, S05, CR_SPINE]) await copyFile(dicomPath(name), path.join(zipSource, name));
  await copyFile(dicomPath(S05), path.join(zipSource, 'copy', S05));
  await symlink(S03, path.join(zipSource, 'link.dcm'));
  zipPath = await makeZip(path.join(dir, ZIP), zipSource, [S03, S04, S05, CR_SPINE, 'copy', 'link.dcm']);
  folderPath = path.join(dir, FOLDER);
  await mkdir(folderPath);
  for (const name of [S05, S06, S07, MR_SMALL]) await copyFile(dicomPath(name), path.join(folderPath, name));
}

beforeAll(async () => {
  [portal, browser, workspace] = await Promise.all([startPortal(), launchBrowser(), makeWorkspace()]);
  await makeUploads(workspace.dir);
  ({ session, projectId } = await signInWithProject(portal, browser, {
    company: 'Curie Imaging',
    user: { ...USER, firstname: 'Marie', lastname: 'Curie' },
    project: PROJECT,
  }));
});

tearDownSuite(() => ({ session, browser, portal, others: [workspace] }));

function studiesTable(page: Page): Locator {
  return page.getByRole('table', { name: 'Studies' });
}

/** The rows of the studies table that are studies (each has its expand button), in the order shown. */
function studyRows(page: Page): Locator {
  return studiesTable(page).locator('tbody tr').filter({ has: page.locator('button[aria-expanded]') });
}

async function shownPatients(page: Page): Promise<string[]> {
  return studyRows(page).locator('td:nth-child(2)').allInnerTexts();
}

function studyRow(page: Page, patient: string): Locator {
  return studyRows(page).filter({ has: page.getByRole('cell', { name: patient, exact: true }) });
}

async function searchStudies(page: Page, text: string, expected: string[]): Promise<void> {
  await page.getByRole('searchbox', { name: 'Search studies' }).fill(text);
  await expect.poll(() => shownPatients(page), POLL).toEqual(expected);
}

describe("the project's studies", () => {
  test('a zip and a folder sent as one delivery are uploaded and processed', async () => {
    const { page } = session;
    await page.goto(`/study/${projectId}`);
    // The files are the default view, as the spec draws them, with the studies one tab away.
    await page.getByRole('heading', { name: 'Project Files' }).waitFor();
    expect(await page.getByRole('tab', { name: 'Project Files' }).getAttribute('aria-selected')).toBe('true');
    await page.getByRole('button', { name: 'Upload Files/Folder' }).click();
    const dialog = page.getByRole('dialog', { name: 'Upload Files' });
    await dialog.getByLabel('Select Files').setInputFiles([zipPath]);
    await dialog.getByLabel('Select Folder').setInputFiles(folderPath);
    await dialog.getByText('Selected files (5 of 5)', { exact: true }).waitFor();
    await dialog.getByRole('button', { name: 'Upload Files' }).click();
    await toast(page, 'Files uploaded successfully').waitFor({ timeout: 60_000 });
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('2 files found', { exact: true }).waitFor();
    for (const name of [ZIP, FOLDER]) await fileRow(page, name).getByText('Ready', { exact: true }).waitFor({ timeout: 90_000 });
  });

  test('the Studies view shows the shared study once, with both uploads as its sources', async () => {
    const { page } = session;
    await page.getByRole('tab', { name: 'Studies' }).click();
    await page.waitForURL((url) => url.search === '?view=studies');
    await page.getByRole('heading', { name: 'Studies', level: 2 }).waitFor();
    await page.getByText('(3 studies)', { exact: true }).waitFor();
    // Newest study first (the server's order); the two of 2001 by their UIDs.
    await expect.poll(() => shownPatients(page), POLL).toEqual([MR1, ARCHIBALD, PETER]);
    const headers = await studiesTable(page).getByRole('columnheader').allInnerTexts();
    expect(headers.map((h) => h.trim())).toEqual(['Show series', 'Patient Name', 'Patient ID', 'Study Date', 'Description', 'Modalities', 'Series', 'Instances', 'Sources', 'Viewer']);
    const cells = await studyRow(page, PETER).getByRole('cell').allInnerTexts();
    // s05 is in both uploads and twice in the zip: five distinct instances, counted once each.
    expect(cells.map((c) => c.trim())).toEqual(['', PETER, '98890234', '2001-01-01', 'N/A', 'CT', '1', '5', `${ZIP}\n${FOLDER}`, '']);
    expect((await studyRow(page, ARCHIBALD).getByRole('cell').allInnerTexts()).map((c) => c.trim())).toEqual([
      '', ARCHIBALD, '77654033', '2001-01-01', 'XR C Spine Comp Min 4 Views', 'CR', '1', '1', ZIP, '',
    ]);
    // The last cell is the 'Open in viewer' link (an icon); the sources are before it.
    expect((await studyRow(page, MR1).getByRole('cell').nth(-2).innerText()).trim()).toBe(FOLDER);
    await page.getByText('1–3 of 3', { exact: true }).waitFor();
    await captureScreen(page, 'studies');

    await page.getByRole('button', { name: `Show series of ${PETER} · 2001-01-01` }).click();
    const series = page.getByRole('table', { name: `Series of ${PETER} · 2001-01-01` });
    await series.waitFor();
    expect((await series.locator('tbody tr').allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim())).toEqual(['CT SmartScore - Gated 0.5 sec 5']);
    await page.getByText('Study Instance UID 1.3.6.1.4.1.5962.1.1.0.0.0.1194734704.16302.0.1', { exact: true }).waitFor();
    // The series' thumbnail (issue 34), read with the session and drawn: a picture the browser decoded.
    const thumbnail = series.getByRole('img', { name: 'Thumbnail of CT · SmartScore - Gated 0.5 sec' });
    await thumbnail.waitFor({ timeout: 30_000 });
    await expect.poll(() => thumbnail.evaluate((img) => (img as HTMLImageElement).naturalWidth), POLL).toBeGreaterThan(0);
    await captureScreen(page, 'studies-series');
    await series.scrollIntoViewIfNeeded();
    await captureScreen(page, 'studies-thumbnails');
    await page.getByRole('button', { name: `Hide series of ${PETER} · 2001-01-01` }).click();
    await series.waitFor({ state: 'detached' });
  });

  test('search and sort are done by the server', async () => {
    const { page } = session;
    await searchStudies(page, 'archi', [ARCHIBALD]);
    await page.getByText('(1 study)', { exact: true }).waitFor();
    await searchStudies(page, '98890234', [PETER]);
    await searchStudies(page, 'spine', [ARCHIBALD]);
    await page.getByRole('searchbox', { name: 'Search studies' }).fill('nobody at all');
    await page.getByText('No studies match "nobody at all"', { exact: true }).waitFor();
    await captureScreen(page, 'studies-no-match');
    await searchStudies(page, '', [MR1, ARCHIBALD, PETER]);

    await studiesTable(page).getByRole('button', { name: 'Patient Name' }).click();
    await expect.poll(() => shownPatients(page), POLL).toEqual([MR1, ARCHIBALD, PETER]);
    expect(await studiesTable(page).getByRole('columnheader', { name: /Patient Name/ }).getAttribute('aria-sort')).toBe('ascending');
    await studiesTable(page).getByRole('button', { name: /Patient Name/ }).click();
    await expect.poll(() => shownPatients(page), POLL).toEqual([PETER, ARCHIBALD, MR1]);
    await studiesTable(page).getByRole('button', { name: 'Instances' }).click();
    await expect.poll(async () => (await shownPatients(page)).at(-1), POLL).toBe(PETER);
    await studiesTable(page).getByRole('button', { name: /Study Date/ }).click();
    await expect.poll(() => shownPatients(page), POLL).toEqual([PETER, ARCHIBALD, MR1]);
  });

  test('the view is kept in the address: a reload and the back button return to it', async () => {
    const { page } = session;
    await page.reload();
    await expect.poll(() => shownPatients(page), POLL).toEqual([MR1, ARCHIBALD, PETER]);
    expect(await page.getByRole('tab', { name: 'Studies' }).getAttribute('aria-selected')).toBe('true');
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.waitForURL((url) => url.pathname === '/home');
    await page.goBack();
    await page.waitForURL((url) => url.search === '?view=studies');
    await studyRow(page, PETER).waitFor();
    await page.getByRole('tab', { name: 'Project Files' }).click();
    await page.waitForURL((url) => url.search === '');
    await page.getByRole('table', { name: 'Project files' }).waitFor();
    await page.goBack();
    await studyRow(page, PETER).waitFor();
    await page.getByRole('tab', { name: 'Project Files' }).click();
  });

  test('the contents dialog says why entries were set apart first, then filters, then the entries', async () => {
    const { page } = session;
    await page.getByRole('button', { name: `View contents of ${ZIP}` }).click();
    const dialog = page.getByRole('dialog', { name: `Contents of ${ZIP}` });
    const reasons = dialog.getByRole('list', { name: 'Why some entries are set apart' });
    await reasons.getByText('1 skipped: symbolic link', { exact: true }).waitFor();
    const entries = dialog.getByRole('table', { name: 'Entries' });
    await entries.getByRole('cell', { name: S03, exact: true }).waitFor();
    // Reading order: the reasons, the filters, the entries.
    const top = async (locator: Locator) => (await locator.boundingBox())?.y ?? Number.NaN;
    const filters = dialog.getByRole('group', { name: 'Show entries of kind' });
    expect(await top(reasons)).toBeLessThan(await top(filters));
    expect(await top(filters)).toBeLessThan(await top(entries));
    expect(await filters.getByRole('button').allTextContents()).toEqual(['All', 'DICOM', 'Other', 'Skipped']);
    // Every kept entry has its download; the link was never stored and has none.
    for (const name of [S03, S04, S05, CR_SPINE, `copy/${S05}`]) await dialog.getByRole('button', { name: `Download ${name}`, exact: true }).waitFor();
    expect(await dialog.getByRole('button', { name: 'Download link.dcm' }).count()).toBe(0);
    // Each series of the upload with its thumbnail.
    const thumbnail = dialog.getByRole('img', { name: 'Thumbnail of CT · SmartScore - Gated 0.5 sec' });
    await thumbnail.waitFor({ timeout: 30_000 });
    await expect.poll(() => thumbnail.evaluate((img) => (img as HTMLImageElement).naturalWidth), POLL).toBeGreaterThan(0);
    await thumbnail.scrollIntoViewIfNeeded();
    await captureScreen(page, 'contents-thumbnails');
    await reasons.scrollIntoViewIfNeeded();
    await captureScreen(page, 'contents-reasons');

    await filters.getByRole('button', { name: 'Skipped' }).click();
    // The skipped entry's reason shows under 'All' too: wait for the DICOM rows to go, then count.
    await entries.getByRole('cell', { name: S03, exact: true }).waitFor({ state: 'detached' });
    await entries.getByRole('cell', { name: 'symbolic link', exact: true }).waitFor();
    expect(await entries.locator('tbody tr').count()).toBe(1);
    await filters.getByRole('button', { name: 'All' }).click();
    await entries.getByRole('cell', { name: CR_SPINE, exact: true }).waitFor();
  });

  test('an entry downloads byte for byte what was inside the upload', async () => {
    const { page } = session;
    const dialog = page.getByRole('dialog', { name: `Contents of ${ZIP}` });
    for (const name of [CR_SPINE, S04]) {
      const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: `Download ${name}`, exact: true }).click()]);
      expect(download.suggestedFilename()).toBe(name);
      expect(await sha256(await download.path())).toBe(await sha256(dicomPath(name)));
      await toast(page, 'File downloaded successfully').first().waitFor();
    }
    // A delivery's entries too: the MR image of the folder.
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: `View contents of ${FOLDER}` }).click();
    const folder = page.getByRole('dialog', { name: `Contents of ${FOLDER}` });
    const [download] = await Promise.all([page.waitForEvent('download'), folder.getByRole('button', { name: `Download ${MR_SMALL}`, exact: true }).click()]);
    expect(await sha256(await download.path())).toBe(await sha256(dicomPath(MR_SMALL)));
    await folder.getByRole('button', { name: 'Close' }).click();
    await folder.waitFor({ state: 'detached' });
  });

  test('dark mode: the studies and the contents dialog', async () => {
    const { page } = session;
    await page.getByRole('button', { name: 'Colour mode: system. Switch to light' }).click();
    await page.getByRole('button', { name: 'Colour mode: light. Switch to dark' }).click();
    await moveAwayFromTooltips(page);
    await page.getByRole('tab', { name: 'Studies' }).click();
    await studyRow(page, PETER).waitFor();
    await page.getByRole('button', { name: `Show series of ${ARCHIBALD} · XR C Spine Comp Min 4 Views · 2001-01-01` }).click();
    await captureScreen(page, 'studies-dark');
    await page.getByRole('tab', { name: 'Project Files' }).click();
    await page.getByRole('button', { name: `View contents of ${ZIP}` }).click();
    const dialog = page.getByRole('dialog', { name: `Contents of ${ZIP}` });
    await dialog.getByRole('cell', { name: S03, exact: true }).waitFor();
    await captureScreen(page, 'contents-reasons-dark');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'Colour mode: dark. Switch to system' }).click();
  });

  test('on a phone: study cards with their series, nothing scrolls sideways, light and dark', async () => {
    const phone = await openSession(browser, portal.url, { viewport: { width: 390, height: 844 }, storageState: await session.context.storageState() });
    try {
      const { page } = phone;
      await page.goto(`/study/${projectId}?view=studies`);
      const cards = page.getByRole('list', { name: 'Studies' });
      const peter = cards.getByRole('listitem', { name: `${PETER} · 2001-01-01` });
      await peter.getByText(`1 series · 5 instances`, { exact: true }).waitFor();
      await peter.getByText(ZIP, { exact: true }).waitFor();
      await peter.getByText(FOLDER, { exact: true }).waitFor();
      expect(await page.getByRole('table', { name: 'Studies' }).count()).toBe(0);
      await peter.getByRole('button', { name: `Show series of ${PETER} · 2001-01-01` }).click();
      await peter.getByRole('table', { name: `Series of ${PETER} · 2001-01-01` }).waitFor();
      const thumbnail = peter.getByRole('img', { name: 'Thumbnail of CT · SmartScore - Gated 0.5 sec' });
      await thumbnail.waitFor({ timeout: 30_000 });
      const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(await overflow()).toBe(0);
      await captureScreen(page, 'studies-phone');
      await thumbnail.scrollIntoViewIfNeeded();
      await captureScreen(page, 'studies-phone-thumbnails');

      // Sorting without column headers: a list of orders.
      await page.getByRole('combobox', { name: 'Sort by' }).click();
      await page.getByRole('option', { name: 'Patient name, Z to A' }).click();
      await expect.poll(() => cards.locator(':scope > li').evaluateAll((items) => items.map((i) => i.getAttribute('aria-label'))), POLL).toEqual([
        `${PETER} · 2001-01-01`,
        `${ARCHIBALD} · XR C Spine Comp Min 4 Views · 2001-01-01`,
        `${MR1} · 2004-08-26`,
      ]);

      await page.getByRole('tab', { name: 'Project Files' }).click();
      await page.getByRole('button', { name: `View contents of ${ZIP}` }).click();
      const dialog = page.getByRole('dialog', { name: `Contents of ${ZIP}` });
      await dialog.getByRole('list', { name: 'Entries' }).getByText(S03, { exact: true }).waitFor();
      expect(await overflow()).toBe(0);
      await captureScreen(page, 'contents-phone');
      await dialog.getByRole('button', { name: 'Close' }).click();

      await page.getByRole('button', { name: 'Colour mode: system. Switch to light' }).click();
      await page.getByRole('button', { name: 'Colour mode: light. Switch to dark' }).click();
      await page.getByRole('tab', { name: 'Studies' }).click();
      await cards.locator(':scope > li').first().waitFor();
      expect(await overflow()).toBe(0);
      await captureScreen(page, 'studies-phone-dark');
      expect(phone.pageErrors).toEqual([]);
    } finally {
      await phone.context.close();
    }
  });

  test('no screen threw an uncaught error', () => {
    expect(session.pageErrors).toEqual([]);
  });
});
