// Steps a user takes on more than one screen, written once.
import type { Locator, Page } from 'playwright-core';

export interface Credentials {
  username: string;
  password: string;
}

export async function waitForPath(page: Page, pathname: string): Promise<void> {
  await page.waitForURL((url) => url.pathname === pathname);
}

/** Fills the login form and presses 'Log in'; the caller waits for what it expects to follow. */
export async function submitLogin(page: Page, { username, password }: Credentials): Promise<void> {
  await page.getByLabel('Username').fill(username);
  // The field's own label, not the show/hide button whose name also says "password".
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

export async function signIn(page: Page, credentials: Credentials): Promise<void> {
  await page.goto('/');
  await submitLogin(page, credentials);
  await waitForPath(page, '/home');
  await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
}

export async function openAccountMenu(page: Page, fullName: string): Promise<Locator> {
  await page.getByRole('button', { name: `Account menu for ${fullName}` }).click();
  const menu = page.getByRole('menu', { name: 'Account' });
  await menu.waitFor();
  return menu;
}

export async function signOut(page: Page, fullName: string): Promise<void> {
  const menu = await openAccountMenu(page, fullName);
  await menu.getByRole('menuitem', { name: 'Logout' }).click();
  await waitForPath(page, '/');
  await page.getByRole('button', { name: 'Log in' }).waitFor();
}

/** A toast (notistack) with exactly this text. */
export function toast(page: Page, text: string): Locator {
  return page.locator('#notistack-snackbar').filter({ hasText: new RegExp(`^${escapeRegExp(text)}$`) });
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export async function storedSession(page: Page): Promise<{ token: string | null; user: string | null }> {
  return page.evaluate(() => ({ token: localStorage.getItem('token'), user: localStorage.getItem('user') }));
}

/** Polls a value until it satisfies `done` or the deadline passes; for states no locator can wait on. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}
