// Debian's Chromium driven by playwright-core: no browser is ever downloaded.
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { AxeResults, Result } from 'axe-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, '..', 'screenshots');
const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let axeCode: string | undefined;
async function axeSource(): Promise<string> {
  axeCode ??= await readFile(AXE_SCRIPT, 'utf8');
  return axeCode;
}

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

/** `downloadsPath`: where the browser's own downloads land (a temporary folder by default). */
export async function launchBrowser(options: { downloadsPath?: string } = {}): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, ...options, args: ARGS });
}

/**
 * A browser whose profile lives in `dir`, as a returning user's does: its HTTP cache and V8's
 * code cache persist between pages (an in-memory context keeps the first, not all of the second).
 */
export async function launchProfile(dir: string, baseURL: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, baseURL, viewport: { width: 1280, height: 800 }, args: ARGS });
}

export interface Session {
  context: BrowserContext;
  page: Page;
  /** Errors the page itself threw; a screen that throws is broken even if it looks right. */
  pageErrors: string[];
}

/**
 * A fresh browser profile (no storage) with a desktop viewport and light colour scheme, so the
 * screenshots compare from run to run whatever the machine prefers.
 */
export async function openSession(
  browser: Browser,
  baseURL: string,
  options: { viewport?: { width: number; height: number }; storageState?: Awaited<ReturnType<BrowserContext['storageState']>> } = {},
): Promise<Session> {
  const context = await browser.newContext({
    baseURL,
    viewport: options.viewport ?? { width: 1280, height: 800 },
    ...(options.storageState ? { storageState: options.storageState } : {}),
    colorScheme: 'light',
    acceptDownloads: true,
    locale: 'en-GB',
    timezoneId: 'UTC',
  });
  // Actions and waits give up long before the test's own timeout, so a failure names its step.
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return { context, page, pageErrors };
}

function describe(violation: Result): string {
  const nodes = violation.nodes
    .slice(0, 5)
    .map((node) => `      - ${node.target.join(' ')}\n        ${node.failureSummary?.replace(/\n/g, '\n        ') ?? ''}`)
    .join('\n');
  return `  [${violation.impact}] ${violation.id}: ${violation.help} (${violation.nodes.length} element(s))\n    ${violation.helpUrl}\n${nodes}`;
}

/** Runs axe-core on what the page shows now; serious and critical violations fail the screen. */
export async function checkAccessibility(page: Page, screen: string): Promise<void> {
  // A button enabled by the answer that drew the screen fades to its colour (MUI's 250 ms
  // transition): checked mid-way its contrast is one the user never sees settled.
  await settle(page);
  // The server's Content-Security-Policy (script-src 'self') refuses page.addScriptTag's inline
  // script; evaluating the source through the DevTools protocol keeps that policy in force.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(await axeSource());
  const results = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<AxeResults> } }).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  });
  const blocking = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  if (blocking.length > 0) {
    const report = blocking.map(describe).join('\n');
    console.error(`axe: ${blocking.length} serious or critical violation(s) on screen '${screen}':\n${report}`);
    throw new Error(`axe found ${blocking.length} serious or critical violation(s) on screen '${screen}':\n${report}`);
  }
}

/** Waits for animations to settle, saves e2e/screenshots/<name>.png, then runs axe on the screen. */
export async function captureScreen(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await settle(page);
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), animations: 'disabled' });
  await checkAccessibility(page, name);
}

/**
 * The same screen in dark mode as well: the app follows the system's scheme unless the user chose
 * one, so the emulated preference switches it in place (no reload: an upload in flight goes on).
 */
export async function captureScreenInDark(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'dark' });
  try {
    await page.locator('html[data-color-scheme="dark"]').waitFor({ state: 'attached' });
    await captureScreen(page, `${name}-dark`);
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
}

/**
 * MUI dialogs, menus and toasts fade and slide in; axe's contrast check on a half-faded element
 * reports colours the user never sees settled. Spinners and skeletons animate forever: ignored.
 */
async function settle(page: Page): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const running = await page.evaluate(
      () =>
        document
          .getAnimations()
          .filter((a) => a.playState === 'running' && a.effect?.getComputedTiming().iterations !== Infinity).length,
    );
    if (running === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Keeps what the browser showed when a step failed, next to the screens, for the report. */
export async function captureFailure(page: Page | undefined, testName: string): Promise<void> {
  if (!page || page.isClosed()) return;
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const name = `FAILED-${testName.replace(/[^\w-]+/g, '-').slice(0, 80)}`;
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) }).catch(() => undefined);
}

/** A hovered icon button keeps its tooltip open over the screen; the pointer goes to empty space. */
export async function moveAwayFromTooltips(page: Page): Promise<void> {
  await page.mouse.move(2, 400);
  await page.getByRole('tooltip').waitFor({ state: 'detached' });
}
