// Two-factor sign-in (issue 37 item 3) as a user meets it: set up from the avatar menu by reading
// the key shown in text into otplib (as an authenticator app would), the recovery codes shown once,
// then signing in with the password and a code, with a wrong code first, and with a recovery code.
import type { Browser, Page } from 'playwright-core';
import { generate } from 'otplib';
import { beforeAll, describe, expect, test } from 'vitest';
import { captureScreen, launchBrowser, openSession, type Session } from '../src/browser.js';
import { startPortal, type Portal } from '../src/portal.js';
import { tearDownSuite } from '../src/suite.js';
import { eventually, openAccountMenu, signIn, signOut, submitLogin, waitForPath } from '../src/ui.js';

const COMPANY = 'Riverside Clinic';
const GRACE = { username: 'grace', password: 'Str0ng!Pass', firstname: 'Grace', lastname: 'Hopper' };
const KATHERINE = { username: 'katherine', password: 'Str0ng!Pass', firstname: 'Katherine', lastname: 'Johnson' };
const PHONE = { width: 390, height: 844 };
const STRICT_COMPANY = 'Northern Hospital';
const MARY = { username: 'mary', password: 'Str0ng!Pass', firstname: 'Mary', lastname: 'Jackson' };
const DOROTHY = { username: 'dorothy', password: 'Str0ng!Pass', firstname: 'Dorothy', lastname: 'Vaughan' };
const EMMY = { username: 'emmy', password: 'Str0ng!Pass', firstname: 'Emmy', lastname: 'Noether' };

let portal: Portal;
let browser: Browser;
let session: Session;
let secret = '';
let recoveryCodes: string[] = [];

/** The code an authenticator app shows `stepsAhead` 30-second steps from now. */
const codeOf = (key: string, stepsAhead = 0) => generate({ secret: key, epoch: Math.floor(Date.now() / 1000) + 30 * stepsAhead });

beforeAll(async () => {
  [portal, browser] = await Promise.all([startPortal(), launchBrowser()]);
  const companyId = await portal.createCompany(COMPANY);
  for (const person of [GRACE, KATHERINE]) await portal.createUser({ companyId, ...person, role: 'User' });
  const strictId = await portal.createCompany(STRICT_COMPANY);
  await portal.createUser({ companyId: strictId, ...MARY, role: 'CompanyAdmin' });
  for (const person of [DOROTHY, EMMY]) await portal.createUser({ companyId: strictId, ...person, role: 'User' });
  session = await openSession(browser, portal.url);
});

tearDownSuite(() => ({ session, browser, portal }));

/** From the avatar menu to the recovery codes: answers the key read off the screen and the codes. */
async function enrol(page: Page, fullName: string, shot: string): Promise<{ key: string; codes: string[] }> {
  const menu = await openAccountMenu(page, fullName);
  await menu.getByRole('menuitem', { name: 'Two-factor sign-in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Two-factor sign-in' });
  await dialog.getByText('Two-factor sign-in is off.', { exact: false }).waitFor();
  await dialog.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
  await dialog.getByRole('img', { name: 'QR code to scan with your authenticator app' }).waitFor();
  const key = (await dialog.getByLabel('Key to enter by hand').innerText()).replace(/\s/g, '');
  expect(key).toMatch(/^[A-Z2-7]{32}$/);
  await captureScreen(page, `${shot}-setup`);

  await dialog.getByRole('textbox', { name: '6-digit code' }).fill((await codeOf(key)) === '000000' ? '111111' : '000000');
  await dialog.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
  await dialog.getByText('That code is not right.', { exact: false }).waitFor();
  await dialog.getByRole('textbox', { name: '6-digit code' }).fill(await codeOf(key));
  await dialog.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
  const list = dialog.getByRole('list', { name: 'Recovery codes' });
  await list.waitFor();
  const codes = (await list.getByRole('listitem').allInnerTexts()).map((c) => c.trim());
  expect(codes).toHaveLength(10);
  await captureScreen(page, `${shot}-recovery-codes`);
  await dialog.getByRole('button', { name: 'I have kept my recovery codes' }).click();
  await dialog.waitFor({ state: 'detached' });
  return { key, codes };
}

describe('two-factor sign-in', () => {
  test('is set up from the avatar menu with the key shown in text, and gives ten recovery codes once', async () => {
    const { page } = session;
    await signIn(page, GRACE);
    ({ key: secret, codes: recoveryCodes } = await enrol(page, 'Grace Hopper', 'two-factor'));

    const menu = await openAccountMenu(page, 'Grace Hopper');
    await menu.getByRole('menuitem', { name: 'Two-factor sign-in' }).click();
    const dialog = page.getByRole('dialog', { name: 'Two-factor sign-in' });
    await dialog.getByText('You have 10 unused recovery codes left.', { exact: false }).waitFor();
    await captureScreen(page, 'two-factor-on');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await signOut(page, 'Grace Hopper');
  });

  test('asks for the code after the password, says so for a wrong one, and signs in with the right one', async () => {
    const { page } = session;
    await page.goto('/');
    await submitLogin(page, GRACE);
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    await page.getByText('Enter the 6-digit code from your authenticator app').waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
    await captureScreen(page, 'two-factor-second-step');

    const field = page.getByRole('textbox', { name: '6-digit code' });
    // The code of setting up is spent: the next step's is what the app shows by now.
    const right = await codeOf(secret, 1);
    await field.fill(right === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('That code is not right. Enter the 6-digit code your authenticator app shows now (each code works once).').waitFor();
    await captureScreen(page, 'two-factor-wrong-code');
    await field.fill(right);
    await page.getByRole('button', { name: 'Verify' }).click();
    await waitForPath(page, '/home');
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await signOut(page, 'Grace Hopper');
  });

  test('signs in with a recovery code instead, once', async () => {
    const { page } = session;
    await page.goto('/');
    await submitLogin(page, GRACE);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByRole('textbox', { name: 'Recovery code' }).fill(recoveryCodes[0]!);
    await captureScreen(page, 'two-factor-recovery-code');
    await page.getByRole('button', { name: 'Verify' }).click();
    await waitForPath(page, '/home');
    await signOut(page, 'Grace Hopper');

    await submitLogin(page, GRACE);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByRole('textbox', { name: 'Recovery code' }).fill(recoveryCodes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('That recovery code is not right, or it was used already.').waitFor();
    await page.getByRole('button', { name: 'Back to sign in' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
  });

  test('a company that requires it (set by its CompanyAdmin) leads its users through setting it up right after the password', async () => {
    const { page } = session;
    await signIn(page, MARY);
    await page.goto('/admin/users');
    const toggle = page.getByRole('switch', { name: 'Require two-factor sign-in' });
    // The switch follows the saved setting: it turns once the server has answered.
    await toggle.click();
    await page.getByText('Two-factor sign-in is now required of this company’s users').waitFor();
    await eventually(() => toggle.isChecked(), (checked) => checked, 'the switch shows the saved setting');
    await page.getByRole('button', { name: 'Reset two-factor sign-in of dorothy' }).waitFor();
    await captureScreen(page, 'two-factor-admin-users');
    await signOut(page, 'Mary Jackson');

    await submitLogin(page, DOROTHY);
    await page.getByRole('heading', { name: 'Set up two-factor sign-in' }).waitFor();
    await page.getByText('Your company requires two-factor sign-in. Set it up now to continue.').waitFor();
    await page.getByRole('img', { name: 'QR code to scan with your authenticator app' }).waitFor();
    await captureScreen(page, 'two-factor-required-setup');
    const key = (await page.getByLabel('Key to enter by hand').innerText()).replace(/\s/g, '');
    await page.getByRole('textbox', { name: '6-digit code' }).fill(await codeOf(key));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await page.getByRole('list', { name: 'Recovery codes' }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
    await captureScreen(page, 'two-factor-required-recovery-codes');
    await page.getByRole('button', { name: 'Continue to the portal' }).click();
    await waitForPath(page, '/home');
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await signOut(page, 'Dorothy Vaughan');
  });

  test('on a phone: the set-up, the recovery codes and the second step fit the screen', async () => {
    const phone = await openSession(browser, portal.url, { viewport: PHONE });
    try {
      await signIn(phone.page, KATHERINE);
      const { key } = await enrol(phone.page, 'Katherine Johnson', 'two-factor-phone');
      await signOut(phone.page, 'Katherine Johnson');
      await submitLogin(phone.page, KATHERINE);
      await phone.page.getByText('Enter the 6-digit code from your authenticator app').waitFor();
      await captureScreen(phone.page, 'two-factor-phone-second-step');
      await phone.page.getByRole('textbox', { name: '6-digit code' }).fill(await codeOf(key, 1));
      await phone.page.getByRole('button', { name: 'Verify' }).click();
      await waitForPath(phone.page, '/home');
      await signOut(phone.page, 'Katherine Johnson');
      // A user whose company requires it, on a phone: the set-up at sign-in, then signing out of it.
      await submitLogin(phone.page, EMMY);
      await phone.page.getByRole('img', { name: 'QR code to scan with your authenticator app' }).waitFor();
      await captureScreen(phone.page, 'two-factor-phone-required-setup');
      await phone.page.getByRole('button', { name: 'Sign out' }).click();
      await phone.page.getByRole('button', { name: 'Log in' }).waitFor();
      expect(phone.pageErrors).toEqual([]);
    } finally {
      await phone.context.close();
    }
    expect(session.pageErrors).toEqual([]);
  });
});
