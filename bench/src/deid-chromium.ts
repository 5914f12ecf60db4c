// The de-identification engine in Chromium (issue 33, item 8): the web app's own worker
// (web/src/features/upload/deid/deid.worker.ts, bundled here by esbuild) in Debian's Chromium,
// headless, driven by playwright-core. The page holds the files as Blobs, as a picked folder's files
// are, and hands them to ONE worker in the app's batches (the Node engine runs on one thread: the
// comparison is per instance); the worker reads each batch's headers at once, de-identifies them and
// hands back each file as a Blob of its new header and its Pixel Data, as in the app.
// Chromium's memory (its whole process tree, the worker's renderer included) is sampled
// while the rounds run, to show whether it stays flat.
import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { Policy } from '@portal/deid';
import { BATCH_FILES } from '../../web/src/features/upload/deid/deid-batch.js';

const WEB_DIR = fileURLToPath(new URL('../../web', import.meta.url));
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];
const PAGE = '<!doctype html><meta charset="utf-8"><title>bench:deid</title><body>de-identification engine</body>';

/**
 * Memory is flat when the later peak exceeds the earlier by at most 32 MB plus 5 %: Chromium's
 * processes hold ~500 MB, and their peaks move by ~25 MB between rounds that leak nothing, while a
 * page that kept each round's 1,000 outputs (39 MB) rose by 88 MB over two rounds (measured).
 */
export const FLAT_RULE = 'later peak ≤ earlier + 32 MB + 5 %';
export function isFlat(earlier: number, later: number): boolean {
  return later <= earlier * 1.05 + 32e6;
}

/** One counted round in the browser, and Chromium's resident memory while it ran. */
export interface BrowserRound {
  seconds: number;
  /** The largest memory of Chromium's processes (sum of PSS) sampled during the round, bytes. */
  peakRssBytes: number;
  /**
   * What Chromium's processes still hold after the round once the page and its worker have
   * collected their garbage, bytes: a leak shows here, where the peak mostly shows when the
   * collector happened to run.
   */
  retainedBytes: number;
  /** SHA-256 of the first file's output, to compare with the Node engine's. */
  firstOutputSha256: string;
}

export interface ChromiumEngine {
  run(policy: Policy, key: Uint8Array): Promise<BrowserRound>;
  close(): Promise<void>;
}

async function bundleWorker(dir: string): Promise<string> {
  const outfile = path.join(dir, 'deid.worker.js');
  await build({
    absWorkingDir: WEB_DIR,
    entryPoints: ['src/features/upload/deid/deid.worker.ts'],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    outfile,
    logLevel: 'warning',
  });
  return readFile(outfile, 'utf8');
}

/** The page, the worker and the files, on loopback. */
function serve(worker: string, files: Uint8Array[]): Promise<Server> {
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    else if (url === '/deid.worker.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(worker);
    else if (url.startsWith('/files/')) {
      const file = files[Number(url.slice('/files/'.length))];
      if (file) res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(file);
      else res.writeHead(404).end();
    } else res.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/**
 * Memory of `root` and every process below it, bytes: the sum of their proportional set sizes (a
 * page shared by the processes counts once in all, where summing VmRSS would count it in each).
 */
export async function treeMemoryBytes(root: number): Promise<number> {
  const parents = new Map<number, number>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    // The command name may hold spaces and parentheses: the fields after its last ')' are fixed.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (Number.isInteger(ppid)) parents.set(Number(name), ppid);
  }
  const inTree = (pid: number): boolean => {
    for (let at: number | undefined = pid, hops = 0; at !== undefined && at > 1 && hops < 64; at = parents.get(at), hops++) if (at === root) return true;
    return false;
  };
  let total = 0;
  for (const pid of parents.keys()) {
    if (!inTree(pid)) continue;
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
    total += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024;
  }
  return total;
}

/** The browser's own process: the one started with this profile folder and no --type (not a renderer or helper). */
export async function browserPid(profile: string): Promise<number> {
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const args = (await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (args.some((a) => a === `--user-data-dir=${profile}`) && !args.some((a) => a.startsWith('--type='))) return Number(name);
  }
  throw new Error('the Chromium process of the benchmark was not found');
}

/** Chromium's memory after the page and its workers collected their garbage (Blobs the page let go are then freed). */
async function retained(page: Page, root: number): Promise<number> {
  const collect = () => (globalThis as unknown as { gc: () => void }).gc();
  for (let i = 0; i < 2; i++) {
    await page.evaluate(collect);
    for (const worker of page.workers()) await worker.evaluate(collect);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return treeMemoryBytes(root);
}

/** Loads the files into the page as Blobs (not timed) and starts one worker. */
export async function startChromiumEngine(files: Uint8Array[]): Promise<ChromiumEngine> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'portal-bench-deid-'));
  const profile = path.join(scratch, 'profile');
  let context: BrowserContext | undefined;
  let server: Server | undefined;
  const close = async () => {
    await context?.close().catch(() => undefined);
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await rm(scratch, { recursive: true, force: true });
  };
  try {
    server = await serve(await bundleWorker(scratch), files);
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      // gc() in the page and the worker, so that what a round leaves behind can be told from garbage.
      args: [...CHROMIUM_ARGS, '--js-flags=--expose-gc'],
    });
    const page: Page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.evaluate(async (count) => {
      const state = globalThis as unknown as { files: Blob[]; worker: Worker };
      state.files = [];
      for (let i = 0; i < count; i++) state.files.push(await (await fetch(`/files/${i}`)).blob());
      state.worker = new Worker('/deid.worker.js');
    }, files.length);
    const root = await browserPid(profile);
    return {
      async run(policy, key) {
        let peak = await treeMemoryBytes(root);
        let sampling = true;
        const sampler = (async () => {
          while (sampling) {
            peak = Math.max(peak, await treeMemoryBytes(root));
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        })();
        try {
          const { ms, first } = await page.evaluate(
            async ({ policy, key, batchFiles }) => {
              const { files, worker } = globalThis as unknown as { files: Blob[]; worker: Worker };
              const keyBytes = new Uint8Array(key);
              type Made = { made?: Blob | Uint8Array<ArrayBuffer>; refused?: string };
              let firstOutput: Blob | Uint8Array<ArrayBuffer> | undefined;
              const start = performance.now();
              // A batch at a time, as one worker of the app's pool takes them (deid-pool.ts BATCH_FILES);
              // each small file comes back as bytes (one buffer per batch), a larger one as a Blob, as the app sends them.
              for (let id = 0; id < files.length; id += batchFiles) {
                const batch = files.slice(id, id + batchFiles);
                const answer = await new Promise<{ outcomes?: Made[]; failed?: string }>((resolve) => {
                  worker.onmessage = (event: MessageEvent<{ outcomes?: Made[]; failed?: string }>) => resolve(event.data);
                  worker.postMessage({ id, files: batch.map((file) => ({ file, compression: 'none' })), policy, key: keyBytes });
                });
                const made = answer.outcomes ?? [];
                const refused = made.find((m) => !m.made);
                if (made.length !== batch.length || refused) throw new Error(`a file of batch ${id} was refused: ${refused?.refused ?? answer.failed ?? 'no answer'}`);
                if (id === 0) firstOutput = made[0]!.made;
              }
              const ms = performance.now() - start;
              const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', firstOutput instanceof Blob ? await firstOutput.arrayBuffer() : firstOutput!));
              return { ms, first: Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('') };
            },
            { policy, key: Array.from(key), batchFiles: BATCH_FILES },
          );
          return { seconds: ms / 1000, peakRssBytes: peak, retainedBytes: await retained(page, root), firstOutputSha256: first };
        } finally {
          sampling = false;
          await sampler;
        }
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
