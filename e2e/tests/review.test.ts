// Issue 35 in a real browser: the reviewers' inbox ('To review'), accepting and rejecting with a
// reason, the sending company's view of the rejected upload, its replacement, and the rules screen.
// Every screen is captured at 1280 and 390 px in light and dark mode (e2e/screenshots, checked with
// axe; copies under SHOTS_DIR when set, to look at).
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { openAsBlob } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { apiCreateProject, apiLogin } from '../src/api.js';
import { captureScreen, launchBrowser, openSession, SCREENSHOT_DIR, type Session } from '../src/browser.js';
import { CT_SERIES, CT_SMALL, dicomPath, MR_SMALL } from '../src/files.js';
import { startPortal, type Portal } from '../src/portal.js';
import { tearDownSuite } from '../src/suite.js';
import { eventually, fileRow, openAccountMenu, signIn, toast } from '../src/ui.js';

const PARTNER = { username: 'viola', password: 'Illyria-Sh1pwreck' };
const REVIEWER = { username: 'malvolio', password: 'Yell0w-Stockings' };
const PROJECT = 'Illyria Knee Study';

interface Reviewed {
  id: number;
  file: string;
  review: { state: string | null; replaced_by: number | null };
}

let portal: Portal;
let browser: Browser;
let partner: Session;
let reviewer: Session;
let partnerToken: string;
let projectId: number;

async function api<T>(method: string, route: string, token: string, body?: unknown): Promise<T> {
  const answer = await fetch(`${portal.url}/api/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : null,
  });
  expect(answer.status, `${method} ${route}`).toBeLessThan(300);
  return (await answer.json()) as T;
}

async function send(name: string, fixture: string, replaces?: number): Promise<number> {
  const form = new FormData();
  form.append('studypetitionid', String(projectId));
  if (replaces !== undefined) form.append('replaces', String(replaces));
  form.append('file', await openAsBlob(dicomPath(fixture)), name);
  const sent = await fetch(`${portal.url}/api/v1/upload-study-petitions-files`, { method: 'POST', headers: { authorization: `Bearer ${partnerToken}` }, body: form });
  expect(sent.status).toBe(201);
  return ((await sent.json()) as { data: [{ id: number }] }).data[0].id;
}

const listed = async () => (await api<{ data: Reviewed[] }>('GET', `/study-petitions-files?study_petition_id=${projectId}`, partnerToken)).data;

async function judged(count: number): Promise<void> {
  await eventually(listed, (files) => files.length >= count && files.every((f) => f.review.state !== null), 'the rules to judge every upload', 60_000);
}

async function setMode(page: Page, mode: 'light' | 'dark'): Promise<void> {
  await page.evaluate((m) => localStorage.setItem('mode', m), mode);
  await page.reload();
}

/** e2e/screenshots (with axe), and a copy to look at under SHOTS_DIR. */
async function shoot(page: Page, name: string, before?: () => Promise<void>): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    await before?.();
    const file = `${name}-${width}`;
    await captureScreen(page, file);
    if (process.env.SHOTS_DIR) {
      await mkdir(process.env.SHOTS_DIR, { recursive: true });
      await copyFile(path.join(SCREENSHOT_DIR, `${file}.png`), path.join(process.env.SHOTS_DIR, `${file}.png`));
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

beforeAll(async () => {
  [portal, browser] = await Promise.all([startPortal(), launchBrowser()]);
  const hospital = await portal.createCompany('Illyria Hospital');
  await portal.createUser({ companyId: hospital, ...PARTNER, firstname: 'Viola', lastname: 'Cesario', role: 'User' });
  const operator = await portal.createCompany('Portal Operator');
  await portal.createUser({ companyId: operator, ...REVIEWER, firstname: 'Malvolio', lastname: 'Steward', role: 'SysUser' });
  partnerToken = (await apiLogin(portal.url, PARTNER.username, PARTNER.password)).token;
  projectId = await apiCreateProject(portal.url, partnerToken, PROJECT);
  const { token: reviewerToken } = await apiLogin(portal.url, REVIEWER.username, REVIEWER.password);
  await api('PUT', `/study-petitions/${projectId}/rules`, reviewerToken, {
    modalities: ['CT'],
    patients_per_upload: { mode: 'exactly', count: 1 },
    required_series: [],
    study_dates: null,
    one_patient_per_study: true,
    consistent_patients: true,
    no_conflicting_instances: true,
    deidentified: true,
  });
  await send('knee-ct.dcm', CT_SMALL);
  await send('knee-mr.dcm', MR_SMALL);
  await judged(2);
  [partner, reviewer] = await Promise.all([openSession(browser, portal.url), openSession(browser, portal.url)]);
  await signIn(partner.page, PARTNER);
  await signIn(reviewer.page, REVIEWER);
});

tearDownSuite(() => ({ session: reviewer, browser, portal }));

function inboxRow(page: Page, name: string) {
  return page.getByRole('table', { name: 'To review' }).getByRole('row').filter({ hasText: name });
}

describe('reviewing what arrives', () => {
  test('the reviewer finds the inbox in the avatar menu: newest first, with the rules on each line, searchable', async () => {
    const { page } = reviewer;
    const menu = await openAccountMenu(page, 'Malvolio Steward');
    await menu.getByRole('menuitem', { name: 'To review' }).click();
    await page.getByRole('heading', { name: 'To review', level: 1 }).waitFor();
    await expect.poll(() => page.getByRole('table', { name: 'To review' }).getByRole('row').count()).toBe(3);
    const rows = page.getByRole('table', { name: 'To review' }).getByRole('row');
    await expect.poll(() => rows.nth(1).textContent()).toContain('knee-mr.dcm');
    expect(await inboxRow(page, 'knee-mr.dcm').textContent()).toContain('Needs attention');
    expect(await inboxRow(page, 'knee-mr.dcm').textContent()).toContain('1 series is of a modality the project does not allow (only CT)');
    expect(await inboxRow(page, 'knee-mr.dcm').textContent()).toContain(`${PROJECT} · Illyria Hospital`);
    expect(await inboxRow(page, 'knee-ct.dcm').textContent()).toContain('All 5 rules pass');
    for (const mode of ['light', 'dark'] as const) {
      await setMode(page, mode);
      await page.getByRole('heading', { name: 'To review', level: 1 }).waitFor();
      await shoot(page, `review-inbox-${mode}`, async () => {
        await expect.poll(() => page.getByText('knee-mr.dcm').count()).toBeGreaterThan(0);
      });
    }
    await page.getByLabel('Search file, project or company').fill('knee-ct');
    await expect.poll(() => page.getByRole('table', { name: 'To review' }).getByRole('row').count()).toBe(2);
    await page.getByLabel('Search file, project or company').fill('');
  });

  test('accepts one upload and rejects the other with a reason and words for the sender', async () => {
    const { page } = reviewer;
    await setMode(page, 'light');
    await inboxRow(page, 'knee-ct.dcm').getByRole('button', { name: 'Review knee-ct.dcm' }).click();
    let dialog = page.getByRole('dialog', { name: 'Review knee-ct.dcm' });
    await dialog.getByRole('radio', { name: 'Accept' }).check();
    await dialog.getByRole('button', { name: 'Accept' }).click();
    await toast(page, 'knee-ct.dcm accepted').waitFor();
    await expect.poll(() => inboxRow(page, 'knee-ct.dcm').count()).toBe(0);

    await inboxRow(page, 'knee-mr.dcm').getByRole('button', { name: 'Review knee-mr.dcm' }).click();
    dialog = page.getByRole('dialog', { name: 'Review knee-mr.dcm' });
    // A file that needs attention opens on Reject; a reason is required.
    await dialog.getByRole('button', { name: 'Reject' }).click();
    await dialog.getByText('Choose a reason for the rejection: the sender reads it.').waitFor();
    await dialog.getByRole('combobox', { name: 'Reason' }).click();
    await page.getByRole('option', { name: 'Wrong study' }).click();
    await dialog.getByRole('textbox', { name: 'What the sender should do' }).fill('Send the CT of the same visit.');
    await dialog.getByRole('button', { name: 'Reject' }).click();
    await toast(page, 'knee-mr.dcm rejected').waitFor();
    await expect.poll(() => inboxRow(page, 'knee-mr.dcm').count()).toBe(0);
    await page.getByRole('combobox', { name: 'Review' }).click();
    await page.getByRole('option', { name: 'Rejected' }).click();
    await expect.poll(() => inboxRow(page, 'knee-mr.dcm').textContent()).toContain('Rejected: Wrong study: Send the CT of the same visit.');
  });

  test('the sender sees the rejection and its reason in the files table and the contents dialog', async () => {
    const { page } = partner;
    await page.goto(`/study/${projectId}`);
    await page.getByRole('heading', { name: PROJECT, level: 1 }).waitFor();
    const row = fileRow(page, 'knee-mr.dcm');
    await expect.poll(() => row.textContent()).toContain('Rejected: Wrong study: Send the CT of the same visit.');
    expect(await fileRow(page, 'knee-ct.dcm').textContent()).toContain('Accepted');
    // The sender has no decision to make.
    expect(await page.getByRole('button', { name: 'Review knee-mr.dcm' }).count()).toBe(0);
    await expect.poll(() => page.getByRole('region', { name: 'Arrival rules' }).textContent()).toContain('Arrival rules: modalities CT; exactly 1 patient per upload');
    for (const mode of ['light', 'dark'] as const) {
      await setMode(page, mode);
      await shoot(page, `review-partner-rejected-${mode}`, async () => {
        await expect.poll(() => page.getByText('Rejected: Wrong study: Send the CT of the same visit.').count()).toBe(1);
      });
    }
    await setMode(page, 'light');
    await row.getByRole('button', { name: 'knee-mr.dcm', exact: true }).click();
    const contents = page.getByRole('dialog', { name: 'Contents of knee-mr.dcm' });
    await expect.poll(() => contents.textContent()).toContain('Rejected: Wrong study: Send the CT of the same visit.');
    expect(await contents.getByRole('list', { name: 'Arrival rules' }).textContent()).toContain('1 series is of a modality the project does not allow (only CT)');
    await contents.getByRole('button', { name: 'Close' }).click();
  });

  test('the sender answers the rejection with a replacement from its row; the files table filters by review', async () => {
    const { page } = partner;
    const rejected = (await listed()).find((f) => f.file === 'knee-mr.dcm')!;
    await page.reload();
    await fileRow(page, 'knee-mr.dcm').getByRole('button', { name: 'Send a replacement for knee-mr.dcm' }).click();
    const dialog = page.getByRole('dialog', { name: 'Upload Files' });
    await expect.poll(() => dialog.getByTestId('replaces-line').textContent()).toBe('This upload replaces “knee-mr.dcm”, which was rejected: send one file, one archive or one folder.');
    await dialog.getByLabel('Select Files').setInputFiles({ name: 'knee-ct-again.dcm', mimeType: 'application/dicom', buffer: await readFile(dicomPath(CT_SERIES[0])) });
    await dialog.getByRole('checkbox', { name: 'knee-ct-again.dcm' }).waitFor();
    await shoot(page, 'review-replacement-dialog');
    await dialog.getByRole('button', { name: 'Upload Files' }).click();
    await dialog.waitFor({ state: 'detached' });
    await judged(3);
    const newer = (await listed()).find((f) => f.file === 'knee-ct-again.dcm')!.id;
    await page.reload();
    await expect.poll(() => fileRow(page, 'knee-mr.dcm').textContent()).toContain('Replaced by a newer upload');
    expect((await listed()).find((f) => f.id === rejected.id)!.review).toMatchObject({ state: 'replaced', replaced_by: newer });
    await page.getByRole('combobox', { name: 'Review' }).click();
    await page.getByRole('option', { name: 'Replaced' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Project files' }).getByRole('row').count()).toBe(2);
    expect(await fileRow(page, 'knee-mr.dcm').count()).toBe(1);
  });

  test('the reviewer sets the project’s rules on the rules screen', async () => {
    const { page } = reviewer;
    await page.goto(`/study/${projectId}`);
    await page.getByRole('heading', { name: PROJECT, level: 1 }).waitFor();
    for (const mode of ['light', 'dark'] as const) {
      await setMode(page, mode);
      await page.getByRole('button', { name: 'Arrival rules' }).click();
      const dialog = page.getByRole('dialog', { name: 'Arrival rules' });
      await dialog.waitFor();
      await shoot(page, `review-rules-${mode}`);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    }
    await setMode(page, 'light');
    await page.getByRole('button', { name: 'Arrival rules' }).click();
    const dialog = page.getByRole('dialog', { name: 'Arrival rules' });
    await dialog.getByRole('textbox', { name: 'Allowed modalities' }).fill('CT, MR');
    await dialog.getByRole('button', { name: 'Add a required series' }).click();
    await dialog.getByRole('textbox', { name: 'Description like' }).fill('*PD*');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await toast(page, 'Arrival rules saved').waitFor();
    await expect
      .poll(() => page.getByRole('region', { name: 'Arrival rules' }).textContent())
      .toContain('modalities CT, MR; exactly 1 patient per upload; a MR series like “*PD*” of at least 1 instance');
  });
});
