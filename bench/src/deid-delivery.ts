// De-identification end to end (issue 33, items 3 and 8): a CD export (a DICOMDIR and N images
// without extensions in series folders) chosen with Select Folder in the real web app, in Debian's
// Chromium, and sent as one delivery to the bundled portal, until the API says the delivery is
// 'ready' (processed); once into a project with the profile `off`, once with `basic` (the browser
// de-identifies every image before sending it; the server checks each again). Rounds alternate the
// two profiles so that the machine's noise hits both; each round has its own portal and DATA_DIR.
// Printed per round: the time to choose the folder (the dialog reads it) and to send it until
// processed, the page's longest task in each phase (the Long Tasks API), and memory (the page's JS
// heap and Chromium's processes) over the send. A first short case sends a 300-file folder per
// profile for the page's longest freeze (issue 33 item 3: 5.7 s before de-identification).
// Targets: basic within 1.25× off end to end (medians); memory flat over the send (what the page's
// heap keeps after a garbage collection, before and after: deid-chromium.ts isFlat). Exits 1 when
// one is missed.
//
// Environment:
//   BENCH_DEID_DELIVERY_COUNT=2000   images in the export
//   BENCH_DEID_FREEZE_COUNT=300      images of the short case (0: skip it)
//   BENCH_RUNS=3                     rounds of each profile
//   BENCH_FILES_CACHE=/path          where the generated files are kept between runs
// Needs `npm run build` first (the root's `bench:deid` does it).
import { copyFile, link, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { apiCreateProject, apiListFiles, apiLogin } from '../../e2e/src/api.js';
import { startPortal } from '../../e2e/src/portal.js';
import { signIn } from '../../e2e/src/ui.js';
import { browserPid, CHROMIUM, CHROMIUM_ARGS } from './deid-chromium.js';
import { flatness, LONG_TASK_OBSERVER, longestTaskBetween, pageNow, retainedHeapBytes, sampleMemory } from './deid-delivery-page.js';
import { prepareFileSet } from './files-input.js';
import { median } from './upload-report.js';

type Profile = 'off' | 'basic';
const USER = { username: 'bench-sender', password: 'Bench!Sender-2026' };
const ADMIN = { username: 'bench-admin', password: 'Bench!Admin-2026' };
const DICOMDIR = path.resolve(import.meta.dirname, '..', '..', 'server', 'test', 'fixtures', 'dicom', 's40_DICOMDIR');
const PER_SERIES = 200;

interface Round {
  profile: Profile;
  selectSeconds: number;
  sendSeconds: number;
  /** Of sendSeconds, from the delivery's row appearing (every file sent) to 'ready'. */
  processSeconds: number;
  longestSelectMs: number;
  longestSendMs: number;
  memory: { flat: boolean; words: string };
}

/** The export as a PACS or a patient CD lays it out, made once from the cached copies (hard links). */
async function cdExport(cacheRoot: string, count: number): Promise<string> {
  const source = process.env.BENCH_DEID_SOURCE ?? '/work/shared/dicom/s01_CT_small.dcm';
  const set = await prepareFileSet(cacheRoot, source, count);
  const dir = path.join(cacheRoot, `cd-export-${count}`, 'PATIENTCD');
  const done = path.join(dir, '..', 'complete');
  if (await stat(done).then(() => true, () => false)) return dir;
  await rm(path.dirname(dir), { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await copyFile(DICOMDIR, path.join(dir, 'DICOMDIR'));
  for (const [i, name] of set.names.slice(0, count).entries()) {
    const series = path.join(dir, 'DICOM', 'ST000001', `SE${String(Math.floor(i / PER_SERIES) + 1).padStart(6, '0')}`);
    if (i % PER_SERIES === 0) await mkdir(series, { recursive: true });
    await link(path.join(set.dir, name), path.join(series, `IM${String(i + 1).padStart(6, '0')}`));
  }
  await writeFile(done, '');
  return dir;
}

/** Waits until the delivery is processed; answers when its row appeared (every file sent, performance.now()). */
async function waitReady(url: string, token: string, projectId: number): Promise<number> {
  const deadline = Date.now() + 20 * 60_000;
  let arrived: number | undefined;
  while (Date.now() < deadline) {
    const files = await apiListFiles(url, token, projectId);
    if (files.length === 1) arrived ??= performance.now();
    const status = files.length === 1 ? files[0]?.processing.status : undefined;
    if (status === 'ready') return arrived ?? performance.now();
    if (status === 'failed') throw new Error(`the delivery failed: ${JSON.stringify(files[0]?.processing)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('the delivery was not ready within 20 minutes');
}

async function oneRound(profile: Profile, cdDir: string): Promise<Round> {
  const portal = await startPortal();
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'portal-bench-delivery-'));
  try {
    const companyId = await portal.createCompany('Bench Imaging');
    await portal.createUser({ companyId, ...USER, firstname: 'Bench', lastname: 'Sender', role: 'User' });
    const operator = await portal.createCompany('Portal Operator');
    await portal.createUser({ companyId: operator, ...ADMIN, firstname: 'Bench', lastname: 'Admin', role: 'SysAdmin' });
    const { token } = await apiLogin(portal.url, USER.username, USER.password);
    const projectId = await apiCreateProject(portal.url, token, 'Bench delivery');
    if (profile === 'basic') {
      const { token: adminToken } = await apiLogin(portal.url, ADMIN.username, ADMIN.password);
      const put = await fetch(`${portal.url}/api/v1/study-petitions/${projectId}/deidentification`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ profile: 'basic', options: [] }),
      });
      if (!put.ok) throw new Error(`setting the profile answered ${put.status}`);
    }
    const profileDir = path.join(scratch, 'profile');
    const context = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, baseURL: portal.url, viewport: { width: 1280, height: 800 } });
    try {
      const page: Page = context.pages()[0] ?? (await context.newPage());
      await page.addInitScript(LONG_TASK_OBSERVER);
      // A page that throws is broken, however fast: the round fails.
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await signIn(page, USER);
      await page.goto(`/study/${projectId}`);
      await page.getByRole('heading', { name: 'Bench delivery', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Upload Files/Folder' }).click();
      const dialog = page.getByRole('dialog', { name: 'Upload Files' });
      await dialog.waitFor();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Performance.enable');
      const keptBefore = await retainedHeapBytes(cdp);

      const chosenAt = await pageNow(page);
      const started = performance.now();
      await dialog.getByLabel('Select Folder').setInputFiles(cdDir);
      await dialog.getByTestId('folder-info').waitFor();
      const send = dialog.getByRole('button', { name: 'Upload Files' });
      while (!(await send.isEnabled())) await new Promise((resolve) => setTimeout(resolve, 50));
      const selected = performance.now();
      const sentAt = await pageNow(page);
      const memory = sampleMemory(cdp, await browserPid(profileDir));
      await send.click();
      const arrived = await waitReady(portal.url, token, projectId);
      const ended = performance.now();
      const samples = await memory.stop();
      const keptAfter = await retainedHeapBytes(cdp);
      if (pageErrors.length > 0) throw new Error(`the page threw: ${pageErrors.join('; ')}`);
      return {
        profile,
        selectSeconds: (selected - started) / 1000,
        sendSeconds: (ended - selected) / 1000,
        processSeconds: (ended - arrived) / 1000,
        longestSelectMs: await longestTaskBetween(page, chosenAt, sentAt),
        longestSendMs: await longestTaskBetween(page, sentAt, Number.POSITIVE_INFINITY),
        memory: flatness(samples, { before: keptBefore, after: keptAfter }),
      };
    } finally {
      await context.close();
    }
  } finally {
    await portal.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

const words = (r: Round) =>
  `${r.profile.padEnd(5)}  choose ${r.selectSeconds.toFixed(1)} s (longest task ${r.longestSelectMs.toFixed(0)} ms)  ` +
  `send until processed ${r.sendSeconds.toFixed(1)} s, of which processing ${r.processSeconds.toFixed(1)} s (longest task ${r.longestSendMs.toFixed(0)} ms)  memory ${r.memory.words}: ${r.memory.flat ? 'flat' : 'GREW'}`;

async function main(): Promise<void> {
  const env = process.env;
  const count = Number(env.BENCH_DEID_DELIVERY_COUNT ?? '2000');
  const freezeCount = Number(env.BENCH_DEID_FREEZE_COUNT ?? '300');
  const runs = Number(env.BENCH_RUNS ?? '3');
  if (![count, runs].every((n) => Number.isInteger(n) && n > 0) || !Number.isInteger(freezeCount) || freezeCount < 0) {
    throw new Error('BENCH_DEID_DELIVERY_COUNT and BENCH_RUNS must be positive whole numbers, BENCH_DEID_FREEZE_COUNT a whole number');
  }
  const cache = env.BENCH_FILES_CACHE ?? path.join(os.tmpdir(), 'portal-bench-files');
  const missed: string[] = [];

  if (freezeCount > 0) {
    const small = await cdExport(cache, freezeCount);
    console.log(`A folder of ${freezeCount} images, once per profile (the page's longest freeze; 5.7 s before de-identification):`);
    for (const profile of ['off', 'basic'] as const) console.log(`  ${words(await oneRound(profile, small))}`);
  }

  const cd = await cdExport(cache, count);
  console.log(`A CD export of ${count} images as one delivery, ${runs} round(s) of each profile, alternated; load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}:`);
  const rounds: Round[] = [];
  for (let i = 0; i < runs; i++) {
    for (const profile of ['off', 'basic'] as const) {
      const round = await oneRound(profile, cd);
      console.log(`  ${words(round)}`);
      rounds.push(round);
      if (!round.memory.flat) missed.push(`memory grew in a ${profile} round`);
    }
  }
  const total = (profile: Profile) => median(rounds.filter((r) => r.profile === profile).map((r) => r.selectSeconds + r.sendSeconds));
  const ratio = total('basic') / total('off');
  console.log(`end to end (median): off ${total('off').toFixed(1)} s, basic ${total('basic').toFixed(1)} s: basic/off ${ratio.toFixed(2)}× (target ≤ 1.25): ${ratio <= 1.25 ? 'ok' : 'MISSED'}`);
  if (!(ratio <= 1.25)) missed.push('de-identification added more than 25 %');
  if (missed.length > 0) {
    console.log(`MISSED: ${missed.join('; ')}`);
    process.exitCode = 1;
  }
}

await main();
