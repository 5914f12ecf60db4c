// Issue 14, item 8 in a real browser: a 1 GiB file goes to the browser's own downloads through a
// single-use download link, byte for byte, while the page's JavaScript heap stays small; a small
// file is still read by the page with the spec's overlay and its percent.
import { open, stat } from 'node:fs/promises';
import { openAsBlob } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { apiCreateProject, apiLogin } from '../src/api.js';
import { captureScreen, launchBrowser, openSession, type Session } from '../src/browser.js';
import { CT_SMALL, dicomPath, makeWorkspace, sha256, type Workspace } from '../src/files.js';
import { startPortal, type Portal } from '../src/portal.js';
import { tearDownSuite } from '../src/suite.js';
import { holdRequests, overlay, signIn, toast } from '../src/ui.js';

const USER = { username: 'ada', password: 'An4lytical!Engine' };
const PROJECT = 'Whole-body CT archive';
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const BIG = 'whole-body.dcm';
const HANDED_OFF = "Download started: your browser's downloads show its progress";

let portal: Portal;
let browser: Browser;
let session: Session;
let workspace: Workspace;
let token: string;
let projectId: number;
let bigPath: string;

/**
 * A DICOM file of 1 GiB: a real CT image's header (the server accepts a file by its first bytes),
 * random bytes, a sparse middle (no need to write a gigabyte) and random bytes at the end.
 */
async function makeBigDicom(target: string): Promise<string> {
  const file = await open(target, 'w');
  try {
    const head = await open(dicomPath(CT_SMALL), 'r');
    const { size } = await head.stat();
    const ct = Buffer.alloc(size);
    await head.read(ct, 0, size, 0);
    await head.close();
    await file.write(ct, 0, size, 0);
    await file.write(randomBytes(4 * MiB), 0, 4 * MiB, size);
    await file.write(randomBytes(MiB), 0, MiB, GiB - MiB);
  } finally {
    await file.close();
  }
  return target;
}

/** Sent the way any client may (multipart), read from disk as it goes. */
async function uploadFile(file: string, name: string): Promise<void> {
  const form = new FormData();
  form.append('studypetitionid', String(projectId));
  form.append('file', await openAsBlob(file), name);
  const answer = await fetch(`${portal.url}/api/v1/upload-study-petitions-files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  if (answer.status !== 201) throw new Error(`upload of ${name} answered ${answer.status}: ${await answer.text()}`);
}

/** The page's JavaScript heap as Chromium reports it (DevTools Performance domain). */
async function heapUsed(cdp: CDPSession): Promise<number> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? Number.NaN;
}

beforeAll(async () => {
  workspace = await makeWorkspace();
  [portal, browser] = await Promise.all([
    // Nothing here needs processing; a gigabyte to index would only slow the machine down.
    startPortal({ PROCESSING_IN_SERVER: 'false' }),
    launchBrowser({ downloadsPath: path.join(workspace.dir, 'downloads') }),
  ]);
  bigPath = await makeBigDicom(path.join(workspace.dir, BIG));
  const companyId = await portal.createCompany('Lovelace Imaging');
  await portal.createUser({ companyId, ...USER, firstname: 'Ada', lastname: 'Lovelace', role: 'User' });
  ({ token } = await apiLogin(portal.url, USER.username, USER.password));
  projectId = await apiCreateProject(portal.url, token, PROJECT);
  await uploadFile(bigPath, BIG);
  await uploadFile(dicomPath(CT_SMALL), CT_SMALL);
  session = await openSession(browser, portal.url);
  await signIn(session.page, USER);
}, 300_000);

tearDownSuite(() => ({ session, browser, portal, others: [workspace] }));

async function openProject(page: Page): Promise<void> {
  await page.goto(`/study/${projectId}`);
  await page.getByRole('heading', { name: PROJECT, level: 1 }).waitFor();
  await page.getByText('2 files found', { exact: true }).waitFor();
}

describe('downloads', () => {
  test('a small file is read by the page, with the overlay and its percent', async () => {
    const { page } = session;
    await openProject(page);
    const links: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/v1/download-links')) links.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });
    const held = await holdRequests(page, (url) => url.pathname.startsWith('/api/v1/download-study-petitions-files/'));
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: `Download ${CT_SMALL}`, exact: true }).click();
    await held.arrived;
    await overlay(page, 'Downloading file...').getByText('0%', { exact: true }).waitFor();
    held.release();
    const saved = await download;
    expect(saved.suggestedFilename()).toBe(CT_SMALL);
    expect(await sha256(await saved.path())).toBe(await sha256(dicomPath(CT_SMALL)));
    await toast(page, 'File downloaded successfully').waitFor();
    await overlay(page, 'Downloading file...').waitFor({ state: 'detached' });
    await held.dispose();
    // Only the settings were asked: no download link for a file the page reads itself.
    expect(links).toEqual(['GET /api/v1/download-links/settings']);
  });

  test('a 1 GiB file goes to the browser’s downloads byte for byte while the page’s heap stays small', async () => {
    const { page } = session;
    await openProject(page);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const before = await heapUsed(cdp);
    const read: string[] = [];
    page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (/^\/api\/v1\/(download|dl\/)/.test(pathname)) read.push(`${request.method()} ${pathname}`);
    });

    const started = page.waitForEvent('download');
    await page.getByRole('button', { name: `Download ${BIG}`, exact: true }).click();
    const download = await started;
    await toast(page, HANDED_OFF).waitFor();
    // The page never showed the spec's overlay for it: the browser shows the progress.
    expect(await overlay(page, 'Downloading file...').count()).toBe(0);
    await captureScreen(page, 'download-handed-to-browser');

    // Sampled while the browser downloads, until the file is complete.
    let peak = before;
    let done = false;
    const sampling = (async () => {
      while (!done) {
        peak = Math.max(peak, await heapUsed(cdp));
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const saved = await download.path();
    done = true;
    await sampling;

    expect(download.suggestedFilename()).toBe(BIG);
    expect(path.dirname(saved)).toBe(path.join(workspace.dir, 'downloads'));
    expect((await stat(saved)).size).toBe(GiB);
    expect(await sha256(saved)).toBe(await sha256(bigPath));
    // A page that read the file would hold it (a gigabyte); this one grew by less than 1/20 of it.
    console.info(`page JS heap: ${(before / MiB).toFixed(1)} MiB before, ${(peak / MiB).toFixed(1)} MiB at most during the 1 GiB download`);
    expect(peak).toBeLessThan(GiB / 20);
    expect(peak - before).toBeLessThan(GiB / 50);
    // The page asked for a link and never for the file; the browser fetched the link itself.
    expect(read).toEqual(['GET /api/v1/download-links/settings', 'POST /api/v1/download-links']);
    expect(new URL(download.url()).pathname).toMatch(/^\/api\/v1\/dl\/[A-Za-z0-9_-]{43}$/);
    await cdp.detach();
  });

  test('the hand-off reads the same at phone width', async () => {
    const phone = await openSession(browser, portal.url, { viewport: { width: 390, height: 844 } });
    try {
      await signIn(phone.page, USER);
      await openProject(phone.page);
      const download = phone.page.waitForEvent('download');
      await phone.page.getByRole('button', { name: `Download ${BIG}`, exact: true }).click();
      await toast(phone.page, HANDED_OFF).waitFor();
      await captureScreen(phone.page, 'phone-download-handed-to-browser');
      await (await download).cancel();
    } finally {
      await phone.context.close();
    }
  });
});
