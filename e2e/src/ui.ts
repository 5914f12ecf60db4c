// Steps a user takes on more than one screen, written once.
import type { Locator, Page, Route } from 'playwright-core';

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

/** The row of the project's files table holding the file (or folder) of this name. */
export function fileRow(page: Page, name: string): Locator {
  return page
    .getByRole('table', { name: 'Project files' })
    .getByRole('row')
    .filter({ has: page.getByRole('button', { name, exact: true }) });
}

/** The full-screen busy overlay with this title, as assistive technology announces it. */
export function overlay(page: Page, title: string): Locator {
  return page.getByRole('status').filter({ hasText: title });
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

export interface HeldRequests {
  /** Resolves when the first matching request reaches the browser's network layer. */
  arrived: Promise<void>;
  /** Lets the held request (and any later one) through to the real server. */
  release(): void;
  /** Removes the interception once the flow it served has finished. */
  dispose(): Promise<void>;
}

/**
 * Holds matching API requests until released, so the in-progress state of an operation (its
 * overlay, its 'Deleting...' label, a dialog that cannot close) can be seen and checked; without
 * it the real server answers before any screenshot could be taken.
 */
export async function holdRequests(page: Page, matches: (url: URL, method: string) => boolean): Promise<HeldRequests> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const predicate = (url: URL) => url.pathname.startsWith('/api/v1/');
  const handler = async (route: Route) => {
    const request = route.request();
    if (!matches(new URL(request.url()), request.method())) return route.fallback();
    arrive();
    await released;
    // After a reload the browser has dropped the request: nothing is left to continue.
    await route.continue().catch(() => undefined);
  };
  await page.route(predicate, handler);
  return { arrived, release, dispose: () => page.unroute(predicate, handler) };
}

/** A file's row in the upload dialog's list. */
export function uploadRow(dialog: Locator, name: string): Locator {
  return dialog.getByRole('list', { name: 'Files to upload' }).getByRole('listitem').filter({ hasText: name });
}

/** Reloads the page, accepting a prompt to leave as the user would; the kinds of prompt shown. */
export async function reloadAccepting(page: Page): Promise<string[]> {
  const prompts: string[] = [];
  page.once('dialog', (prompt) => {
    prompts.push(prompt.type());
    void prompt.accept();
  });
  await page.reload();
  return prompts;
}
