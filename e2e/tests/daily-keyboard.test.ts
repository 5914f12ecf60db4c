// Keyboard and focus (issue 36, item 7) and the projects list done by the server (item 4), in
// Chromium: the focus ring's computed style in both colour modes, the skip link, focus after a
// route change and a failed sign-in, the account menu's named region, axe on each screen touched.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { apiCreateProject, apiLogin } from '../src/api.js';
import { checkAccessibility, launchBrowser, openSession, type Session } from '../src/browser.js';
import { startPortal, type Portal } from '../src/portal.js';
import { tearDownSuite } from '../src/suite.js';
import { signIn, signOut, submitLogin, waitForPath } from '../src/ui.js';

const ADA = { username: 'ada', password: 'L0velace!Engine' };
const BOB = { username: 'bob', password: 'B0bby!Tables9' };
const ROOT = { username: 'root', password: 'R00t!Portal-admin' };
/** Screens for people to look at; outside the repository. */
const SHOTS = '/tmp/shots-daily';

let portal: Portal;
let browser: Browser;
let session: Session;

beforeAll(async () => {
  [portal, browser] = await Promise.all([startPortal(), launchBrowser()]);
  const acme = await portal.createCompany('Acme Imaging');
  const beta = await portal.createCompany('Beta Clinics');
  const staff = await portal.createCompany('Portal staff');
  await portal.createUser({ companyId: acme, ...ADA, firstname: 'Ada', lastname: 'Lovelace', role: 'CompanyAdmin' });
  await portal.createUser({ companyId: beta, ...BOB, firstname: 'Bob', lastname: 'Tables', role: 'CompanyAdmin' });
  await portal.createUser({ companyId: staff, ...ROOT, firstname: 'Root', lastname: 'Admin', role: 'SysAdmin' });
  const ada = await apiLogin(portal.url, ADA.username, ADA.password);
  for (const name of ['Brain MRI', 'Liver CT', 'Knee follow-up', 'Chest X-ray', 'Abdomen', 'Spine']) await apiCreateProject(portal.url, ada.token, name);
  const bob = await apiLogin(portal.url, BOB.username, BOB.password);
  for (const name of ['Beta cardiology', 'Beta brain cohort']) await apiCreateProject(portal.url, bob.token, name);
  await mkdir(SHOTS, { recursive: true });
  session = await openSession(browser, portal.url);
});

tearDownSuite(() => ({ session, browser, portal }));

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), animations: 'disabled' });
}

/** Presses Tab until the focused element matches, as a keyboard user would reach it. */
async function tabTo(page: Page, matches: (el: Element) => boolean, what: string, most = 40): Promise<void> {
  for (let i = 0; i < most; i += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(`(${matches.toString()})(document.activeElement)`)) return;
  }
  throw new Error(`Tab never reached ${what}`);
}

const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');

/** The focused element's ring as the browser draws it. */
function focusRing(page: Page) {
  return page.evaluate(() => {
    const style = getComputedStyle(document.activeElement!);
    return { width: style.outlineWidth, style: style.outlineStyle, color: style.outlineColor, offset: style.outlineOffset, shadow: style.boxShadow };
  });
}

async function setMode(page: Page, mode: 'light' | 'dark'): Promise<void> {
  await page.evaluate((m) => localStorage.setItem('mode', m), mode);
  await page.reload();
}

describe('keyboard and focus', () => {
  test('an empty sign-in says which field is required; a wrong password keeps Invalid Login and focus goes to the heading', async () => {
    const { page } = session;
    await page.goto('/');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('Username is required', { exact: true }).waitFor();
    await page.getByText('Password is required', { exact: true }).waitFor();
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).toBe('username');
    await checkAccessibility(page, 'login, fields required');
    await submitLogin(page, { username: ADA.username, password: 'Wr0ng!Password' });
    await page.getByText('Invalid Login', { exact: true }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    await checkAccessibility(page, 'login, refused');
  });

  test("'Skip to main content' is the first stop of Tab, shows itself, and moves focus past the top bar", async () => {
    const { page } = session;
    await signIn(page, ADA);
    await page.getByRole('link', { name: 'Spine' }).waitFor();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Tab');
    expect(await focusedText(page)).toBe('Skip to main content');
    const box = await page.getByRole('link', { name: 'Skip to main content' }).boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    await shoot(page, 'skip-link-desktop-light');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    // The next stop is inside the screen, not the top bar.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('main') !== null)).toBe(true);
  });

  test.each(['light', 'dark'] as const)('a 3 px two-tone ring marks the keyboard focus on buttons, sort headers, tabs and menu items (%s)', async (mode) => {
    const { page } = session;
    await page.goto('/home');
    await setMode(page, mode);
    await page.getByRole('link', { name: 'Spine' }).waitFor();
    const [ring, inner] = mode === 'light' ? ['rgb(26, 26, 26)', 'rgb(255, 255, 255)'] : ['rgb(255, 255, 255)', 'rgb(14, 20, 32)'];

    await tabTo(page, (el) => el.textContent?.trim() === 'Add Project', "'Add Project'");
    expect(await focusRing(page)).toMatchObject({ width: '3px', style: 'solid', color: ring, offset: '2px' });
    // The inner tone fades in with the button's own box-shadow transition.
    await expect.poll(async () => (await focusRing(page)).shadow).toContain(inner);
    await shoot(page, `focus-ring-button-desktop-${mode}`);

    await tabTo(page, (el) => el.classList.contains('MuiTableSortLabel-root') && el.textContent?.trim() === 'Name', "the 'Name' sort header");
    expect(await focusRing(page)).toMatchObject({ width: '3px', style: 'solid', color: ring });
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('columnheader', { name: 'Name' }).getAttribute('aria-sort')).toBe('ascending');
    await shoot(page, `focus-ring-sort-desktop-${mode}`);

    await tabTo(page, (el) => el.getAttribute('aria-label')?.startsWith('Edit project') ?? false, 'an edit icon button');
    expect(await focusRing(page)).toMatchObject({ width: '3px', style: 'solid', color: ring });

    // A mouse click draws no ring.
    await page.getByRole('button', { name: 'Add Project' }).click();
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    // The account menu: its items take the ring inside them, and the name block is a named region.
    await page.getByRole('button', { name: 'Account menu for Ada Lovelace' }).focus();
    await page.keyboard.press('Enter');
    const menu = page.getByRole('menu', { name: 'Account' });
    await menu.waitFor();
    await page.getByRole('region', { name: 'Signed in as Ada Lovelace' }).waitFor();
    await page.keyboard.press('ArrowDown');
    expect(await focusRing(page)).toMatchObject({ width: '3px', style: 'solid', color: ring, offset: '-3px' });
    await shoot(page, `focus-ring-menu-desktop-${mode}`);
    await checkAccessibility(page, `account menu (${mode})`);
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    await setMode(page, 'light');
  });

  test('after a move to another screen focus is on its heading, not the page body', async () => {
    const { page } = session;
    await page.goto('/home');
    await page.getByRole('link', { name: 'Spine' }).click();
    await page.getByRole('heading', { level: 1 }).filter({ hasText: 'Spine' }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    expect(await focusedText(page)).toContain('Spine');
    await checkAccessibility(page, 'project, after the move');
    await page.goBack();
    await waitForPath(page, '/home');
    await expect.poll(() => focusedText(page)).toBe('Projects');
  });
});

describe('the projects list done by the server', () => {
  test('a company user searches and sorts their own projects only, with counts, and no Company column', async () => {
    const { page } = session;
    await page.goto('/home');
    const table = page.getByRole('table', { name: 'Projects' });
    await table.getByRole('link', { name: 'Spine' }).waitFor();
    expect(await table.getByRole('columnheader').allInnerTexts()).toEqual(['Name', 'Files', 'Studies', 'Last upload', 'Date Created', 'Date Updated', 'Actions']);
    expect(await page.getByText('Beta cardiology').count()).toBe(0);
    await page.getByRole('searchbox', { name: 'Search projects' }).fill('brain');
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    expect(await table.locator('tbody tr td:first-child').allInnerTexts()).toEqual(['Brain MRI']);
    // A search for another company's project finds nothing of it.
    await page.getByRole('searchbox', { name: 'Search projects' }).fill('Beta');
    await page.getByText('No projects match the search. Change or clear it to see more projects.').waitFor();
    await page.getByRole('searchbox', { name: 'Search projects' }).fill('');
    await table.getByRole('link', { name: 'Spine' }).waitFor();
    // Columns keep their widths from page to page.
    const widths = () => table.locator('thead th').evaluateAll((cells) => cells.map((c) => Math.round(c.getBoundingClientRect().width)));
    const first = await widths();
    await page.getByRole('button', { name: 'Go to next page' }).click();
    await table.getByRole('link', { name: 'Brain MRI' }).waitFor();
    expect(await widths()).toEqual(first);
    await signOut(page, 'Ada Lovelace');
  });

  test('a SysAdmin sees every company, filters by one and sorts by company; screens on desktop and phone, light and dark', async () => {
    const { page } = session;
    await signIn(page, ROOT);
    const table = page.getByRole('table', { name: 'Projects' });
    await table.getByRole('columnheader', { name: 'Company' }).waitFor();
    await table.getByRole('button', { name: 'Company' }).click();
    await expect.poll(() => table.locator('tbody tr td:nth-child(2)').first().innerText()).toBe('Acme Imaging');
    await table.getByRole('button', { name: 'Company' }).click();
    await expect.poll(() => table.locator('tbody tr td:nth-child(2)').first().innerText()).toBe('Beta Clinics');
    await page.getByRole('combobox', { name: 'Company' }).click();
    await page.getByRole('option', { name: 'Beta Clinics' }).click();
    await expect.poll(() => table.locator('tbody tr').count()).toBe(2);
    expect(new Set(await table.locator('tbody tr td:nth-child(2)').allInnerTexts())).toEqual(new Set(['Beta Clinics']));
    await page.mouse.move(2, 700);
    await checkAccessibility(page, 'projects as a SysAdmin');
    await shoot(page, 'projects-sysadmin-desktop-light');
    await setMode(page, 'dark');
    await table.getByRole('columnheader', { name: 'Company' }).waitFor();
    await shoot(page, 'projects-sysadmin-desktop-dark');
    await checkAccessibility(page, 'projects as a SysAdmin, dark');
    await setMode(page, 'light');

    const phone = await openSession(browser, portal.url, { viewport: { width: 390, height: 844 }, storageState: await session.context.storageState() });
    await phone.page.goto('/home');
    await phone.page.getByRole('searchbox', { name: 'Search projects' }).waitFor();
    await phone.page.getByText('Company: Acme Imaging').first().waitFor();
    await shoot(phone.page, 'projects-sysadmin-phone-light');
    await checkAccessibility(phone.page, 'projects as a SysAdmin on a phone');
    await phone.context.close();
    await signOut(page, 'Root Admin');
  });
});
