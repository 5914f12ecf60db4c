// Single sign-on as a user meets it: the username typed, 'Sign in with <company>', the company's
// own provider's login page (a real oidc-provider), and back on the projects signed in, with the
// portal's own session. Also a user the company's provider knows but the portal does not.
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { apiLogin } from '../src/api.js';
import { captureScreen, launchBrowser, openSession, type Session } from '../src/browser.js';
import { startTestProvider, type TestProvider } from '../src/oidc-provider.js';
import { startPortal, type Portal } from '../src/portal.js';
import { tearDownSuite } from '../src/suite.js';
import { storedSession, waitForPath } from '../src/ui.js';

const COMPANY = 'St Mary Hospital';
const BUTTON = `Sign in with ${COMPANY}`;
const USERNAME = 'nora';
const PASSWORD = 'Str0ng!Pass';

let portal: Portal;
let browser: Browser;
let provider: TestProvider;
let session: Session;

beforeAll(async () => {
  [portal, browser] = await Promise.all([startPortal(), launchBrowser()]);
  provider = await startTestProvider([{ client_id: 'portal', client_secret: 'e2e-client-secret', redirect_uris: [`${portal.url}/api/v1/sso/callback`] }]);
  const adminCompany = await portal.createCompany('Administration');
  await portal.createUser({ companyId: adminCompany, username: 'root', password: PASSWORD, firstname: 'Sys', lastname: 'Admin', role: 'SysAdmin' });
  const companyId = await portal.createCompany(COMPANY);
  await portal.createUser({ companyId, username: USERNAME, password: PASSWORD, firstname: 'Nora', lastname: 'Quinn', role: 'User' });
  provider.accounts.set('nora.quinn', { preferred_username: USERNAME, given_name: 'Nora', family_name: 'Quinn' });
  provider.accounts.set('stranger', { preferred_username: 'stranger' });

  const { token } = await apiLogin(portal.url, 'root', PASSWORD);
  const answer = await fetch(`${portal.url}/api/v1/admin/companies/${companyId}/sso`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      enabled: true,
      issuer: provider.issuer,
      client_id: 'portal',
      client_secret: 'e2e-client-secret',
      password_login_allowed: true,
      auto_create_users: false,
    }),
  });
  expect(answer.status).toBe(200);
  session = await openSession(browser, portal.url);
});

tearDownSuite(() => ({ session, browser, portal, others: [{ remove: () => provider.close() }] }));

/** Types the username and goes to the provider's own login page through the button. */
async function toProvider(page: Session['page'], username: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Username').fill(username);
  await page.getByRole('button', { name: BUTTON }).click();
  await page.waitForURL((url) => url.origin === provider.issuer);
}

/** The provider's development login page: any password for an account it knows. */
async function signInAtProvider(page: Session['page'], login: string): Promise<void> {
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('whatever-the-provider-checks');
  await page.getByRole('button', { name: 'Sign-in' }).click();
}

describe('single sign-on', () => {
  test("shows 'Sign in with <company>' once the username is typed, and only for that company's users", async () => {
    const { page } = session;
    await page.goto('/');
    const lookedUp = page.waitForResponse((r) => r.url().endsWith('/api/v1/sso/discover') && r.request().postDataJSON()?.username === 'someone-else');
    await page.getByLabel('Username').fill('someone-else');
    await lookedUp;
    await expect(page.getByRole('button', { name: BUTTON }).count()).resolves.toBe(0);
    await page.getByLabel('Username').fill(USERNAME);
    await page.getByRole('button', { name: BUTTON }).waitFor();
    await expect(page.getByRole('button', { name: 'Log in' }).isVisible()).resolves.toBe(true);
    await captureScreen(page, 'login-sso-desktop');

    const phone = await openSession(browser, portal.url, { viewport: { width: 390, height: 844 } });
    try {
      await phone.page.goto('/');
      await phone.page.getByLabel('Username').fill(USERNAME);
      await phone.page.getByRole('button', { name: BUTTON }).waitFor();
      await captureScreen(phone.page, 'login-sso-phone');
    } finally {
      await phone.context.close();
    }
  });

  test("signs in at the company's provider and lands on the projects with the portal's own session", async () => {
    const { page } = session;
    const visited: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) visited.push(frame.url());
    });
    await toProvider(page, USERNAME);
    await signInAtProvider(page, 'nora.quinn');
    await waitForPath(page, '/home');
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Account menu for Nora Quinn' }).waitFor();

    const stored = await storedSession(page);
    expect(stored.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.parse(stored.user!)).toMatchObject({ username: USERNAME, company: { companyname: COMPANY } });
    // The session token travelled in no URL; the one-time code left none behind in the address bar.
    expect(visited.some((url) => url.includes(stored.token!))).toBe(false);
    expect(new URL(page.url()).hash).toBe('');
    const me = await fetch(`${portal.url}/api/v1/me`, { headers: { authorization: `Bearer ${stored.token}` } });
    expect(me.status).toBe(200);

    // Signing out ends it like any session.
    await page.getByRole('button', { name: 'Account menu for Nora Quinn' }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await waitForPath(page, '/');
    expect((await fetch(`${portal.url}/api/v1/me`, { headers: { authorization: `Bearer ${stored.token}` } })).status).toBe(401);
  });

  test('tells a user the provider knows but the portal does not that they have no access yet', async () => {
    const { page } = session;
    // The provider still remembers nora from the test before: forget it, as another person's browser would.
    await session.context.clearCookies();
    await toProvider(page, USERNAME);
    await signInAtProvider(page, 'stranger');
    await waitForPath(page, '/');
    await page.getByText('Your company account has no access to the portal yet. Ask your administrator to add you.').waitFor();
    await captureScreen(page, 'login-sso-refused');
    await expect(storedSession(page)).resolves.toEqual({ token: null, user: null });
  });
});
