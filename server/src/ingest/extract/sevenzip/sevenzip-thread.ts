// How a thread running sevenzip-worker is started, and 7-Zip's WebAssembly compiled for it: in the
// job's process for the native zip and tar paths, and in the 7-Zip process (sevenzip-process.ts).
import { Worker } from 'node:worker_threads';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import type { WasmModule } from './sevenzip-protocol.js';

const Wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } }).WebAssembly;

/**
 * 7-Zip compiled once per process: compiling its 1.6 MB and optimising the hot functions costs
 * about a second of CPU, which every request after the first is spared. Threads are sent this module.
 */
let compiled: Promise<WasmModule> | null = null;
export function compiledSevenZip(): Promise<WasmModule> {
  if (compiled === null) {
    compiled = readFile(createRequire(import.meta.url).resolve('7z-wasm/7zz.wasm')).then((bytes) => Wasm.compile(bytes));
    // A failed read or compile is tried again by the next request rather than remembered.
    compiled.catch(() => (compiled = null));
  }
  return compiled;
}

/**
 * The worker's young generation, in MB. Left to V8, a worker's grows like the job's thread's (to
 * ~130 MB on this machine under the churn of 100,000 tiny entries) although everything it allocates
 * dies within one entry or lives for the whole run: a small one costs a little more collection and
 * kept a 100,001-entry zip's peak ~140 MB lower (docs/processing.md, "Responsiveness").
 */
const WORKER_YOUNG_GENERATION_MB = 4;
const resourceLimits = { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB };

/** The worker module, beside this one: TypeScript under tsx or vitest, JavaScript in the bundle. */
export function workerModule(): URL {
  return import.meta.url.endsWith('.ts') ? new URL('./sevenzip-worker.ts', import.meta.url) : new URL('./sevenzip-worker.js', import.meta.url);
}

/**
 * Code that registers tsx's hooks, then imports `module`. Vitest loads modules through its own
 * runner, which a worker thread or a child process does not inherit (and `--import tsx` is not on
 * its command line).
 */
export function tsxBootstrap(module: URL): string {
  // Resolved by hand: require.resolve would pick tsx's CommonJS build, which cannot be imported here.
  const tsxRoot = path.dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const tsx = pathToFileURL(path.join(tsxRoot, 'dist/esm/api/index.mjs')).href;
  return `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(module.href)}); })`;
}

export function spawnSevenZipThread(): Worker {
  const worker = workerModule();
  if (!worker.href.endsWith('.ts')) return new Worker(worker, { resourceLimits });
  return new Worker(tsxBootstrap(worker), { eval: true, resourceLimits });
}
