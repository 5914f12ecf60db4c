// Signing in and out, the session's guards, the avatar menu, changing the password, colour mode.
import type { Browser, Response } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { apiLogin, apiLogout, apiStoredUser } from '../src/api.js';
import { captureScreen, launchBrowser, moveAwayFromTooltips, openSession, type Session } from '../src/browser.js';
import { startPortal, type Portal } from '../src/portal.js';
import { tearDownSuite } from '../src/suite.js';
import { eventually, holdRequests, openAccountMenu, overlay, signIn, signOut, storedSession, submitLogin, waitForPath } from '../src/ui.js';

const FIRST = 'Ada';
const LAST = 'Lovelace';
const FULL_NAME = `${FIRST} ${LAST}`;
const COMPANY = 'Acme Imaging';
const USERNAME = 'ada';
const PASSWORD = 'Str0ng!Pass';
const NEW_PASSWORD = 'N3w!Secret-pw';

let portal: Portal;
let browser: Browser;
let session: Session;
let password = PASSWORD;

beforeAll(async () => {
  [portal, browser] = await Promise.all([startPortal(), launchBrowser()]);
  const companyId = await portal.createCompany(COMPANY);
  await portal.createUser({ companyId, username: USERNAME, password: PASSWORD, firstname: FIRST, lastname: LAST, role: 'CompanyAdmin' });
  session = await openSession(browser, portal.url);
});

tearDownSuite(() => ({ session, browser, portal }));

describe('signed out', () => {
  test('the browser gets the page revalidated and its scripts brotli-compressed, cacheable for a year', async () => {
    const { page } = session;
    const scripts: { url: string; encoding: string | undefined; cache: string | undefined; length: number }[] = [];
    const onResponse = (response: Response) => {
      if (!/\/assets\/.+\.js$/.test(response.url())) return;
      const headers = response.headers();
      const length = Number(headers['content-length'] ?? Infinity);
      scripts.push({ url: response.url(), encoding: headers['content-encoding'], cache: headers['cache-control'], length });
    };
    page.on('response', onResponse);
    const document = await page.goto('/');
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    page.off('response', onResponse);
    expect(document?.headers()['cache-control']).toBe('no-cache');
    expect(scripts.some((s) => /\/assets\/index-[^/]+\.js$/.test(s.url) && s.encoding === 'br')).toBe(true);
    for (const script of scripts) {
      expect(script.cache, script.url).toBe('public, max-age=31536000, immutable');
      // Only a script too small to gain from it (under 1 KB, a few runtime lines) goes uncompressed.
      if (script.encoding !== 'br') expect(script.length, script.url).toBeLessThan(1024);
    }
  });

  test('/home sends a visitor without a session to /', async () => {
    const { page } = session;
    await page.goto('/home');
    await waitForPath(page, '/');
    await page.getByRole('button', { name: 'Log in' }).waitFor();
  });

  test('the login screen: two panes, show/hide password, forgot password', async () => {
    const { page } = session;
    await page.goto('/');
    await page.getByText('Secure data upload for partners').waitFor();
    await captureScreen(page, 'login');

    const field = page.getByRole('textbox', { name: 'Password' });
    await field.fill('secret');
    expect(await field.getAttribute('type')).toBe('password');
    await page.getByRole('button', { name: 'Show password' }).click();
    expect(await page.getByLabel('Password', { exact: true }).getAttribute('type')).toBe('text');
    await page.getByRole('button', { name: 'Hide password' }).click();
    expect(await page.getByLabel('Password', { exact: true }).getAttribute('type')).toBe('password');

    await page.getByRole('button', { name: 'Forgot your password?' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await captureScreen(page, 'login-forgot-password');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  test('a wrong password shows Invalid Login, the right one opens /home', async () => {
    const { page } = session;
    await page.goto('/');
    await submitLogin(page, { username: USERNAME, password: 'Wrong!Pass1' });
    await page.getByText('Invalid Login', { exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await storedSession(page)).toEqual({ token: null, user: null });
    await captureScreen(page, 'login-error');

    await submitLogin(page, { username: USERNAME, password });
    await waitForPath(page, '/home');
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    const stored = await storedSession(page);
    expect(stored.token).toBeTruthy();
    const user = JSON.parse(stored.user ?? '{}') as { firstname?: string; company?: { companyname?: string } };
    expect(user.firstname).toBe(FIRST);
    expect(user.company?.companyname).toBe(COMPANY);

    // The stored session is restored on a fresh load.
    await page.reload();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/home');
    // And / sends a signed-in user on to /home.
    await page.goto('/');
    await waitForPath(page, '/home');
  });
});

describe('signed in', () => {
  test('the avatar shows the initial and its menu who is signed in', async () => {
    const { page } = session;
    await page.goto('/home');
    const avatar = page.getByRole('button', { name: `Account menu for ${FULL_NAME}` });
    expect((await avatar.innerText()).trim()).toBe('A');
    const menu = await openAccountMenu(page, FULL_NAME);
    const popover = page.locator('.MuiPopover-paper');
    await popover.getByText(FULL_NAME, { exact: true }).waitFor();
    await popover.getByText('Role: CompanyAdmin', { exact: true }).waitFor();
    await popover.getByText(`Company: ${COMPANY}`, { exact: true }).waitFor();
    const items = await menu.getByRole('menuitem').allInnerTexts();
    // Ada is a CompanyAdmin: administrators find the administration screens here too (issue 15).
    expect(items.map((t) => t.trim())).toEqual(['Administration', 'Notifications', 'API tokens', 'Change Password', 'Two-factor sign-in', 'Logout']);
    await captureScreen(page, 'avatar-menu');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
  });

  test('change password walks through every validation message, then succeeds', async () => {
    const { page } = session;
    await page.goto('/home');
    const menu = await openAccountMenu(page, FULL_NAME);
    await menu.getByRole('menuitem', { name: 'Change Password' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change Password' });
    await dialog.waitFor();
    const current = dialog.getByLabel('Current Password', { exact: true });
    const next = dialog.getByLabel('New Password', { exact: true });
    const confirm = dialog.getByLabel('Confirm New Password', { exact: true });
    const submit = dialog.getByRole('button', { name: 'Change Password' });
    const alert = dialog.getByRole('alert');
    const checklist = dialog.getByRole('list', { name: 'Password requirements' });

    // Spec §5: the button stays disabled while the new password is invalid, so Enter is how a user
    // asks for the ordered checks (web/README).
    expect(await submit.isDisabled()).toBe(true);
    await current.press('Enter');
    await alert.filter({ hasText: 'All fields are required' }).waitFor();

    await current.fill(password);
    await next.fill('weakpass');
    await confirm.fill('weakpass');
    expect(await submit.isDisabled()).toBe(true);
    await confirm.press('Enter');
    await alert.filter({ hasText: 'Password does not meet all requirements' }).waitFor();
    // The live checklist: length and lowercase met, the other three not.
    expect(await checklist.getByRole('listitem').allInnerTexts()).toEqual([
      'Minimum 8 characters',
      'One uppercase letter',
      'One lowercase letter',
      'One number',
      'One special character (!@#$%^&*)',
    ]);
    expect(await checklist.getByRole('img', { name: 'met', exact: true }).count()).toBe(2);
    expect(await checklist.getByRole('img', { name: 'not met', exact: true }).count()).toBe(3);
    await captureScreen(page, 'change-password-checklist');

    await next.fill(NEW_PASSWORD);
    // The message follows the fields: with every rule green the requirements message goes at once,
    // and the next check in the spec's order speaks (the confirmation still differs).
    await alert.filter({ hasText: 'Passwords do not match' }).waitFor();
    expect(await alert.allInnerTexts()).toEqual(['Passwords do not match']);
    await confirm.fill(`${NEW_PASSWORD}x`);
    // The confirmation's helper text says it before any submit.
    await dialog.locator('.MuiFormHelperText-root').filter({ hasText: 'Passwords do not match' }).waitFor();
    expect(await checklist.getByRole('img', { name: 'met', exact: true }).count()).toBe(5);
    expect(await submit.isDisabled()).toBe(true);
    await confirm.press('Enter');
    await alert.filter({ hasText: 'Passwords do not match' }).waitFor();
    await captureScreen(page, 'change-password-mismatch');

    await next.fill(password);
    await confirm.fill(password);
    expect(await submit.isEnabled()).toBe(true);
    await submit.click();
    await alert.filter({ hasText: 'New password must be different from the current one' }).waitFor();

    await next.fill(NEW_PASSWORD);
    await confirm.fill(NEW_PASSWORD);
    const held = await holdRequests(page, (url, method) => method === 'POST' && url.pathname === '/api/v1/password_reset');
    await submit.click();
    await held.arrived;
    await overlay(page, 'Changing password...').getByText('Please wait while we process your request', { exact: true }).waitFor();
    // Shown once, in the dialog it came from: no second overlay stacked over the dialog.
    await dialog.getByRole('status').filter({ hasText: 'Changing password...' }).waitFor();
    expect(await page.getByRole('status').count()).toBe(1);
    expect(await current.isDisabled()).toBe(true);
    // Closing is blocked while submitting.
    await page.keyboard.press('Escape');
    await captureScreen(page, 'change-password-submitting');
    expect(await dialog.isVisible()).toBe(true);
    held.release();
    await dialog.getByText('Password changed successfully', { exact: true }).waitFor();
    await held.dispose();
    await captureScreen(page, 'change-password-success');
    // On success the fields clear and the dialog closes itself.
    expect(await current.inputValue()).toBe('');
    await dialog.waitFor({ state: 'detached' });
    password = NEW_PASSWORD;

    await signOut(page, FULL_NAME);
    await submitLogin(page, { username: USERNAME, password: PASSWORD });
    await page.getByText('Invalid Login', { exact: true }).waitFor();
    await submitLogin(page, { username: USERNAME, password });
    await waitForPath(page, '/home');
  });

  test('dark mode: the toggle cycles system → light → dark and is kept under "mode"', async () => {
    const { page } = session;
    await page.goto('/home');
    await page.getByRole('button', { name: 'Colour mode: system. Switch to light' }).click();
    await page.getByRole('button', { name: 'Colour mode: light. Switch to dark' }).click();
    await page.getByRole('button', { name: 'Colour mode: dark. Switch to system' }).waitFor();
    await moveAwayFromTooltips(page);
    expect(await page.evaluate(() => localStorage.getItem('mode'))).toBe('dark');
    expect(await page.locator('html').getAttribute('data-color-scheme')).toBe('dark');
    // The page itself turns dark, not only the attribute.
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe('rgb(14, 20, 32)');
    await captureScreen(page, 'projects-empty-dark');

    const menu = await openAccountMenu(page, FULL_NAME);
    await captureScreen(page, 'avatar-menu-dark');
    await menu.getByRole('menuitem', { name: 'Change Password' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change Password' });
    await dialog.getByLabel('New Password', { exact: true }).fill('Abc1');
    await captureScreen(page, 'change-password-dark');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });

    // The choice survives a reload and applies to the login screen too.
    await signOut(page, FULL_NAME);
    expect(await page.locator('html').getAttribute('data-color-scheme')).toBe('dark');
    await captureScreen(page, 'login-dark');
    await page.getByRole('button', { name: 'Colour mode: dark. Switch to system' }).click();
    await page.getByRole('button', { name: 'Colour mode: system. Switch to light' }).waitFor();
    await signIn(page, { username: USERNAME, password });
  });

  test('logout ends the session: back to /, storage cleared, /home refused', async () => {
    const { page } = session;
    await page.goto('/home');
    await signOut(page, FULL_NAME);
    expect(await storedSession(page)).toEqual({ token: null, user: null });
    await page.goto('/home');
    await waitForPath(page, '/');
    await page.getByRole('button', { name: 'Log in' }).waitFor();
  });
});

describe('a token the server no longer accepts', () => {
  // What an expired session looks like to the browser: a stored token and user the API answers
  // 401 to. A revoked token is refused exactly like one past TOKEN_IDLE_MINUTES, without waiting.
  const cases = {
    revoked: async () => {
      const api = await apiLogin(portal.url, USERNAME, password);
      const user = await apiStoredUser(portal.url, api);
      await apiLogout(portal.url, api.token);
      return { token: api.token, user };
    },
    garbage: async () => {
      const api = await apiLogin(portal.url, USERNAME, password);
      return { token: 'not-a-real-token', user: await apiStoredUser(portal.url, api) };
    },
  };

  for (const [kind, make] of Object.entries(cases)) {
    test(`a ${kind} token on /home lands on / with the storage cleared`, async () => {
      const { token, user } = await make();
      const fresh = await openSession(browser, portal.url);
      try {
        const { page } = fresh;
        await page.goto('/');
        await page.evaluate(
          ([t, u]) => {
            localStorage.setItem('token', t);
            localStorage.setItem('user', u);
          },
          [token, JSON.stringify(user)] as const,
        );
        // The stored session is restored first; it is the API's 401 that sends the user away.
        const refused = page.waitForResponse((r) => r.url().includes('/api/v1/') && r.status() === 401);
        await page.goto('/home');
        await refused;
        await waitForPath(page, '/');
        await page.getByRole('button', { name: 'Log in' }).waitFor();
        await eventually(() => storedSession(page), (s) => s.token === null && s.user === null, 'the session to be cleared');
        expect(fresh.pageErrors).toEqual([]);
      } finally {
        await fresh.context.close();
      }
    });
  }
});

test('no screen threw an uncaught error', () => {
  expect(session.pageErrors).toEqual([]);
});
