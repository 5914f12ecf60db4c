// Issue 33's screens as each side sees them, in light and dark mode, at desktop and phone width:
// the project's line (sending company, SysAdmin, and 'kept as sent' for a project left 'off'), the
// SysAdmin's De-identification dialog, the upload dialog's line, and what arrived: the files table's
// badge, the report with an instance flagged for review, and the Studies view's pseudonym. Each screen is saved under
// e2e/screenshots and checked with axe (contrast included), so a dark tone that fails AA fails here.
import { openAsBlob } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { apiCreateProject, apiListFiles, apiLogin } from '../src/api.js';
import { captureScreen, launchBrowser, openSession, type Session } from '../src/browser.js';
import { CT_SMALL, dicomPath } from '../src/files.js';
import { startPortal, type Portal } from '../src/portal.js';
import { tearDownSuite } from '../src/suite.js';
import { eventually, fileRow, signIn } from '../src/ui.js';

const USER = { username: 'rosalind', password: 'Arden-F0rest!' };
const ADMIN = { username: 'jaques', password: 'Melanch0ly-Stage' };
const PROTECTED = 'Arden Trial';
const KEPT = 'Arden Clinic Archive';
/** An 'other' image (OT) without Burned In Annotation: it may show identity in its pixels. */
const OT_IMAGE = 's34_OT_deflated_image_dfl.dcm';
/** What CT_SMALL says of its patient as sent: never shown once the server has de-identified it. */
const SENT_NAME = 'CompressedSamples';

let portal: Portal;
let browser: Browser;
let user: Session;
let admin: Session;
let protectedId: number;
let keptId: number;

beforeAll(async () => {
  [portal, browser] = await Promise.all([startPortal(), launchBrowser()]);
  const companyId = await portal.createCompany('Arden Imaging');
  await portal.createUser({ companyId, ...USER, firstname: 'Rosalind', lastname: 'Ganymede', role: 'User' });
  const operator = await portal.createCompany('Portal Operator');
  await portal.createUser({ companyId: operator, ...ADMIN, firstname: 'Jaques', lastname: 'Lord', role: 'SysAdmin' });
  const { token } = await apiLogin(portal.url, USER.username, USER.password);
  [protectedId, keptId] = [await apiCreateProject(portal.url, token, PROTECTED), await apiCreateProject(portal.url, token, KEPT)];
  const { token: adminToken } = await apiLogin(portal.url, ADMIN.username, ADMIN.password);
  const answer = await fetch(`${portal.url}/api/v1/study-petitions/${protectedId}/deidentification`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ profile: 'basic', options: ['retainLongitudinalModifiedDates'] }),
  });
  expect(answer.status).toBe(200);
  // Sent as an API client sends (identity included): the server de-identifies both on arrival.
  for (const name of [CT_SMALL, OT_IMAGE]) {
    const form = new FormData();
    form.append('studypetitionid', String(protectedId));
    form.append('file', await openAsBlob(dicomPath(name)), name);
    const sent = await fetch(`${portal.url}/api/v1/upload-study-petitions-files`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(sent.status).toBe(201);
  }
  await eventually(
    () => apiListFiles(portal.url, token, protectedId),
    (files) => files.length === 2 && files.every((f) => f.processing.status === 'ready'),
    'both uploads to be processed',
    60_000,
  );
  [user, admin] = await Promise.all([openSession(browser, portal.url), openSession(browser, portal.url)]);
  await signIn(user.page, USER);
  await signIn(admin.page, ADMIN);
});

tearDownSuite(() => ({ session: user, browser, portal }));

async function openProject(page: Page, id: number, name: string): Promise<void> {
  await page.goto(`/study/${id}`);
  await page.getByRole('heading', { name, level: 1 }).waitFor();
}

async function setMode(page: Page, mode: 'light' | 'dark'): Promise<void> {
  await page.evaluate((m) => localStorage.setItem('mode', m), mode);
}

/** Saves the screen at desktop and phone width, under `<name>-<width>-<mode>`. */
async function captureBothWidths(page: Page, name: string, mode: 'light' | 'dark', before?: () => Promise<void>): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    await before?.();
    await captureScreen(page, `${name}-${width}-${mode}`);
  }
}

describe.each(['light', 'dark'] as const)('de-identification screens in %s mode', (mode) => {
  test('the sending company sees the project line and the upload dialog line', async () => {
    const { page } = user;
    await setMode(page, mode);
    await openProject(page, protectedId, PROTECTED);
    expect(await page.locator('html').getAttribute('data-color-scheme')).toBe(mode);
    await expect.poll(() => page.getByRole('note').textContent()).toBe('De-identified: Basic profile, dates shifted');
    await captureBothWidths(page, 'deid-project-line', mode);

    await page.getByRole('button', { name: 'Upload Files/Folder' }).click();
    const dialog = page.getByRole('dialog', { name: 'Upload Files' });
    await expect
      .poll(() => dialog.getByTestId('deidentification-line').textContent())
      .toBe('Patient identity is removed on this computer before upload: Basic profile, dates shifted');
    await captureBothWidths(page, 'deid-upload-dialog', mode);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // A project left 'off' says nothing to its own company: it looks exactly as before.
    await openProject(page, keptId, KEPT);
    expect(await page.getByRole('note').count()).toBe(0);
  });

  test('the receiving team sees each row badged, the report with the flagged image, and pseudonyms only', async () => {
    const { page } = admin;
    await page.setViewportSize({ width: 1280, height: 800 });
    await setMode(page, mode);
    await openProject(page, protectedId, PROTECTED);
    await fileRow(page, OT_IMAGE).getByText('De-identified').first().waitFor();
    await expect.poll(() => fileRow(page, CT_SMALL).getByText('De-identified').count()).toBeGreaterThan(0);
    // The phone shows cards, not the table: each card carries the badge too.
    await captureBothWidths(page, 'deid-files-badge', mode, async () => {
      await expect.poll(() => page.getByText('De-identified', { exact: true }).count()).toBe(2);
    });

    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: `View contents of ${OT_IMAGE}` }).click();
    const dialog = page.getByRole('dialog', { name: `Contents of ${OT_IMAGE}` });
    await dialog.getByRole('button', { name: 'Needs review' }).waitFor();
    expect(await dialog.textContent()).toMatch(/review/i);
    await captureBothWidths(page, 'deid-report', mode);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('tab', { name: 'Studies' }).click();
    await page.getByText(/P-[0-9A-F]{12}/).first().waitFor();
    expect(await page.locator('main').textContent()).not.toContain(SENT_NAME);
    await captureBothWidths(page, 'deid-studies', mode, async () => {
      await page.getByText(/P-[0-9A-F]{12}/).first().waitFor();
    });
  });

  test('a SysAdmin sees both lines and the De-identification dialog', async () => {
    const { page } = admin;
    await setMode(page, mode);
    await openProject(page, keptId, KEPT);
    await expect.poll(() => page.getByRole('note').textContent()).toContain('Patient identity is kept as sent');
    await captureBothWidths(page, 'deid-kept-as-sent', mode);

    await openProject(page, protectedId, PROTECTED);
    await expect.poll(() => page.getByRole('note').textContent()).toContain('De-identified: Basic profile, dates shifted');
    await page.getByRole('button', { name: 'De-identification' }).click();
    const dialog = page.getByRole('dialog', { name: 'De-identification' });
    await dialog.waitFor();
    await captureBothWidths(page, 'deid-policy-dialog', mode);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });
});
