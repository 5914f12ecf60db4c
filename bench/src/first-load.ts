// The first screen's JavaScript (issue 36, item 8): the bundled portal (npm start's server, the
// built web app with its precompressed .br/.gz files) opened in Debian's Chromium with an empty
// cache, once per round. Counted: the compressed bytes of every script whose response had ended
// when the sign-in form became usable (its Username field, Password field and 'Log in' button in
// the page: React attaches the handlers in the same commit), read from the browser's own Resource
// Timing (encodedBodySize: what the server sent, before the browser decoded it). Printed beside it:
// the time to that moment, the scripts the page fetched later (on its own, e.g. the deferred
// tooltip), console errors and Content-Security-Policy violations. Exits 1 when the bytes exceed the
// target or the page logged an error or a violation.
import { chromium, type Browser } from 'playwright-core';
import { startPortal } from '../../e2e/src/portal.js';
import { CHROMIUM, CHROMIUM_ARGS } from './deid-chromium.js';

/** Issue 36: JavaScript sent before the sign-in form is usable, at most this many KiB. */
const TARGET_KIB = 120;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** After the form is usable, how long the page is left to fetch what it fetches on its own. */
const SETTLE_MS = 3000;

interface Script {
  name: string;
  encoded: number;
  decoded: number;
  end: number;
}

interface Round {
  usableAtMs: number;
  before: Script[];
  after: Script[];
  encoding: string;
  consoleErrors: string[];
  violations: string[];
}

// Runs in the page before its own scripts: the moment the form is there, and every CSP violation.
const PAGE_PROBE = `
  window.__firstLoad = { usableAt: null, violations: [] };
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__firstLoad.violations.push(e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sourceFile || ''));
  });
  new MutationObserver((_, observer) => {
    const ready = document.querySelector('input[name="username"]:not([disabled])')
      && document.querySelector('input[name="password"]:not([disabled])')
      && [...document.querySelectorAll('button[type="submit"]')].some((b) => b.textContent.trim() === 'Log in' && !b.disabled);
    if (ready) { window.__firstLoad.usableAt = performance.now(); observer.disconnect(); }
  }).observe(document, { childList: true, subtree: true });
`;

async function round(browser: Browser, url: string): Promise<Round> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    let encoding = '';
    page.on('response', (response) => {
      if (response.url().endsWith('.js') && !encoding) encoding = response.headers()['content-encoding'] ?? 'none';
    });
    await page.addInitScript(PAGE_PROBE);
    await page.goto(url);
    await page.waitForFunction(() => (window as unknown as { __firstLoad: { usableAt: number | null } }).__firstLoad.usableAt !== null);
    await page.waitForTimeout(SETTLE_MS);
    const seen = await page.evaluate(() => {
      const probe = (window as unknown as { __firstLoad: { usableAt: number; violations: string[] } }).__firstLoad;
      const scripts = (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
        .filter((entry) => new URL(entry.name).pathname.endsWith('.js'))
        .map((entry) => ({ name: new URL(entry.name).pathname, encoded: entry.encodedBodySize, decoded: entry.decodedBodySize, end: entry.responseEnd }));
      return { usableAt: probe.usableAt, violations: probe.violations, scripts };
    });
    return {
      usableAtMs: seen.usableAt,
      before: seen.scripts.filter((s) => s.end <= seen.usableAt),
      after: seen.scripts.filter((s) => s.end > seen.usableAt),
      encoding,
      consoleErrors,
      violations: seen.violations,
    };
  } finally {
    await context.close();
  }
}

const kib = (bytes: number) => (bytes / 1024).toFixed(1);
const sum = (scripts: Script[], key: 'encoded' | 'decoded') => scripts.reduce((total, s) => total + s[key], 0);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const portal = await startPortal();
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const rounds: Round[] = [];
  try {
    for (let i = 0; i < RUNS; i += 1) rounds.push(await round(browser, `${portal.url}/`));
  } finally {
    await browser.close();
    await portal.stop();
  }
  const last = rounds.at(-1)!;
  console.log(`Sign-in page, ${RUNS} cold load(s), scripts sent as ${last.encoding}:`);
  for (const s of last.before) console.log(`  before usable  ${kib(s.encoded).padStart(6)} KiB (${kib(s.decoded).padStart(6)} KiB decoded)  ${s.name}`);
  for (const s of last.after) console.log(`  after          ${kib(s.encoded).padStart(6)} KiB (${kib(s.decoded).padStart(6)} KiB decoded)  ${s.name}`);
  const sent = median(rounds.map((r) => sum(r.before, 'encoded')));
  console.log(
    `JavaScript sent before the sign-in form is usable: ${kib(sent)} KiB (${kib(median(rounds.map((r) => sum(r.before, 'decoded'))))} KiB decoded) in ${last.before.length} file(s); ` +
      `usable after ${median(rounds.map((r) => r.usableAtMs)).toFixed(0)} ms (median); ${kib(median(rounds.map((r) => sum(r.after, 'encoded'))))} KiB fetched later. Target ≤ ${TARGET_KIB} KiB.`,
  );
  const errors = rounds.flatMap((r) => r.consoleErrors);
  const violations = rounds.flatMap((r) => r.violations);
  for (const e of new Set(errors)) console.log(`console error: ${e}`);
  for (const v of new Set(violations)) console.log(`CSP violation: ${v}`);
  const missed = sent > TARGET_KIB * 1024 || errors.length > 0 || violations.length > 0;
  console.log(missed ? 'MISSED' : 'met');
  process.exitCode = missed ? 1 : 0;
}

await main();
