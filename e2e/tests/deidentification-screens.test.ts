// Issue 33's screens as each side sees them, in light and dark mode, at desktop and phone width:
// the project's line (sending company, SysAdmin, and 'kept as sent' for a project left 'off'), the
// SysAdmin's De-identification dialog, and the upload dialog's line. Each screen is saved under
// e2e/screenshots and checked with axe (contrast included), so a dark tone that fails AA fails here.
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { apiCreateProject, apiLogin } from '../src/api.js';
import { captureScreen, launchBrowser, openSession, type Session } from '../src/browser.js';
import { startPortal, type Portal } from '../src/portal.js';
import { tearDownSuite } from '../src/suite.js';
import { signIn } from '../src/ui.js';

const USER = { username: 'rosalind', password: 'Arden-F0rest!' };
const ADMIN = { username: 'jaques', password: 'Melanch0ly-Stage' };
const PROTECTED = 'Arden Trial';
const KEPT = 'Arden Clinic Archive';

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
