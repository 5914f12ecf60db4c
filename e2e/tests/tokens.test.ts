// Personal API tokens (issue 37, item 1): a User makes a token under 'API tokens' in the avatar
// menu, copies the secret shown once, a script (this test) calls the API with it, the User revokes
// it on the same screen and the script's next call is refused. The screens at desktop and phone width.
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { captureScreen, launchBrowser, moveAwayFromTooltips, openSession, type Session } from '../src/browser.js';
import { startPortal, type Portal } from '../src/portal.js';
import { apiCreateProject, apiLogin } from '../src/api.js';
import { tearDownSuite } from '../src/suite.js';
import { openAccountMenu, signIn, toast } from '../src/ui.js';

const USER = { username: 'tara', password: 'Tara!Token-pw1', firstname: 'Tara', lastname: 'Script' };
const ADMIN = { username: 'wendy', password: 'Wendy!Admin-pw2', firstname: 'Wendy', lastname: 'West' };
const PROJECT = 'PACS export cohort';
const PHONE = { width: 390, height: 844 };
const REVOKED = 'This API token was revoked. Create a new one under API tokens in the portal’s account menu.';

let portal: Portal;
let browser: Browser;
let session: Session;
let projectId: number;

beforeAll(async () => {
  [portal, browser] = await Promise.all([startPortal(), launchBrowser()]);
  const companyId = await portal.createCompany('Westside Hospital');
  await portal.createUser({ companyId, ...USER, role: 'User' });
  await portal.createUser({ companyId, ...ADMIN, role: 'CompanyAdmin' });
  projectId = await apiCreateProject(portal.url, (await apiLogin(portal.url, USER.username, USER.password)).token, PROJECT);
  session = await openSession(browser, portal.url);
  await signIn(session.page, USER);
  await session.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: portal.url });
});

tearDownSuite(() => ({ session, browser, portal }));

const callApi = (token: string) => fetch(`${portal.url}/api/v1/study-petitions`, { headers: { authorization: `Bearer ${token}` } });
const inDaysUtc = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describe('API tokens', () => {
  test('a user makes a token, copies it once, a script uses it, and revoking it stops the script', async () => {
    const { page } = session;
    const menu = await openAccountMenu(page, 'Tara Script');
    await menu.getByRole('menuitem', { name: 'API tokens' }).click();
    const screen = page.getByRole('dialog', { name: 'API tokens' });
    await screen.getByText('No tokens yet.', { exact: false }).waitFor();

    await screen.getByRole('button', { name: 'New Token' }).click();
    const form = page.getByRole('dialog', { name: 'New API Token' });
    // Ninety days unless changed; a year at most.
    expect(await form.getByLabel('Expires').inputValue()).toBe(inDaysUtc(90));
    expect(await form.getByLabel('Expires').getAttribute('max')).toBe(inDaysUtc(365));
    await form.getByLabel('Name').fill('Nightly PACS export');
    await form.getByRole('radio', { name: /^Read and upload/ }).check();
    await form.getByRole('combobox', { name: 'Only these projects' }).click();
    await page.getByRole('option', { name: PROJECT }).click();
    // Closes the list of projects (Esc would close the whole dialog).
    await form.getByRole('heading', { name: 'New API Token' }).click();
    await form.getByRole('button', { name: PROJECT }).waitFor();
    await captureScreen(page, 'tokens-create');
    await form.getByRole('button', { name: 'Create Token' }).click();

    const shown = page.getByRole('dialog', { name: 'Token created' });
    await shown.getByText('This token is shown only once.', { exact: false }).waitFor();
    const secret = await shown.getByLabel('Token').inputValue();
    expect(secret).toMatch(/^pup_[A-Za-z0-9_-]{43}$/);
    await shown.getByRole('button', { name: 'Copy Token' }).click();
    await shown.getByText('Copied to the clipboard.', { exact: true }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await captureScreen(page, 'tokens-secret');
    await shown.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'detached' });

    // The script: the copied secret reads the project it is limited to.
    const answer = await callApi(secret);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { data: { id: number }[] }).data.map((p) => p.id)).toEqual([projectId]);

    // The list shows it with its scope and project (and never the secret again).
    await screen.getByRole('button', { name: 'Close' }).click();
    await (await openAccountMenu(page, 'Tara Script')).getByRole('menuitem', { name: 'API tokens' }).click();
    const row = screen.getByRole('table', { name: 'API tokens' }).getByRole('row').filter({ hasText: 'Nightly PACS export' });
    await row.getByRole('cell', { name: 'Read and upload', exact: true }).waitFor();
    await row.getByRole('cell', { name: PROJECT, exact: true }).waitFor();
    await row.getByText('from 127.0.0.1', { exact: false }).waitFor();
    expect(await screen.textContent()).not.toContain(secret);
    await moveAwayFromTooltips(page);
    await captureScreen(page, 'tokens-list');

    await row.getByRole('button', { name: 'Revoke token Nightly PACS export' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke token?' });
    await confirm.getByText('Scripts using this token stop working at once.', { exact: false }).waitFor();
    await confirm.getByRole('button', { name: 'Revoke' }).click();
    await toast(page, 'Token revoked').waitFor();
    await row.waitFor({ state: 'detached' });

    const refused = await callApi(secret);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { message: string }).message).toBe(REVOKED);
    expect(session.pageErrors).toEqual([]);
  });

  test('the token screens at phone width', async () => {
    const phone = await openSession(browser, portal.url, { viewport: PHONE });
    try {
      const { page } = phone;
      await signIn(page, USER);
      await (await openAccountMenu(page, 'Tara Script')).getByRole('menuitem', { name: 'API tokens' }).click();
      const screen = page.getByRole('dialog', { name: 'API tokens' });
      await screen.getByRole('button', { name: 'New Token' }).click();
      const form = page.getByRole('dialog', { name: 'New API Token' });
      await form.getByLabel('Name').fill('Laptop script');
      await captureScreen(page, 'phone-tokens-create');
      await form.getByRole('button', { name: 'Create Token' }).click();
      const shown = page.getByRole('dialog', { name: 'Token created' });
      await shown.getByLabel('Token').waitFor();
      await captureScreen(page, 'phone-tokens-secret');
      await shown.getByRole('button', { name: 'Done' }).click();
      await screen.getByRole('list', { name: 'API tokens' }).getByRole('listitem', { name: 'Laptop script' }).waitFor();
      await captureScreen(page, 'phone-tokens-list');
      expect(phone.pageErrors).toEqual([]);
    } finally {
      await phone.context.close();
    }
  });

  test('their CompanyAdmin sees the company’s tokens in the administration and revokes one', async () => {
    const admin = await openSession(browser, portal.url);
    try {
      const { page } = admin;
      await signIn(page, ADMIN);
      await page.goto('/admin/tokens');
      await page.getByRole('tab', { name: 'API tokens', selected: true }).waitFor();
      const row = page.getByRole('table', { name: 'API tokens' }).getByRole('row').filter({ hasText: 'Laptop script' });
      await row.getByRole('cell', { name: USER.username, exact: true }).waitFor();
      await moveAwayFromTooltips(page);
      await captureScreen(page, 'admin-tokens');
      await row.getByRole('button', { name: 'Revoke token Laptop script' }).click();
      await page.getByRole('dialog', { name: 'Revoke token?' }).getByRole('button', { name: 'Revoke' }).click();
      await toast(page, 'Token revoked').waitFor();
      await page.getByText('No API tokens are in use.', { exact: true }).waitFor();
      expect(admin.pageErrors).toEqual([]);
    } finally {
      await admin.context.close();
    }
  });
});
