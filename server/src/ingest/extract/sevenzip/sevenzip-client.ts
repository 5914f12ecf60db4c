// The job's handle on its 7-Zip worker thread: one per job, terminated on abort or when done.
import { Worker } from 'node:worker_threads';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import type {
  ExtractRequest,
  ExtractResult,
  ListRequest,
  ListResult,
  SettledFile,
  NativeZipRequest,
  NativeTarRequest,
  WasmModule,
  WorkerReply,
  WorkerRequest,
} from './sevenzip-protocol.js';

type Pending = {
  resolve: (value: ListResult | ExtractResult) => void;
  reject: (error: Error) => void;
  onSettled?: (file: SettledFile) => void;
};

const Wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } }).WebAssembly;

/**
 * 7-Zip compiled once per process: compiling its 1.6 MB and optimising the hot functions costs
 * about a second of CPU, which every job after the first is spared. Workers are sent this module.
 */
let compiled: Promise<WasmModule> | null = null;
function compiledSevenZip(): Promise<WasmModule> {
  if (compiled === null) {
    compiled = readFile(createRequire(import.meta.url).resolve('7z-wasm/7zz.wasm')).then((bytes) => Wasm.compile(bytes));
    // A failed read or compile is tried again by the next job rather than remembered.
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

/**
 * Under tsx or vitest this module is TypeScript, and so is its worker. Vitest loads modules through
 * its own runner, which a worker thread does not inherit (and `--import tsx` is not on its command
 * line), so the worker first registers tsx's hooks, then imports the worker.
 */
function spawnWorker(): Worker {
  const worker = new URL('./sevenzip-worker.ts', import.meta.url);
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./sevenzip-worker.js', import.meta.url), { resourceLimits });
  // Resolved by hand: require.resolve would pick tsx's CommonJS build, which cannot be imported here.
  const tsxRoot = path.dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const tsx = pathToFileURL(path.join(tsxRoot, 'dist/esm/api/index.mjs')).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(worker.href)}); })`;
  return new Worker(bootstrap, { eval: true, resourceLimits });
}

export class SevenZipWorker {
  private readonly worker: Worker;
  /** 7-Zip requests wait for the module to reach the worker (sent once, when first needed). */
  private wasmSent: Promise<void> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure: Error | null = null;

  constructor(signal?: AbortSignal) {
    this.worker = spawnWorker();
    this.worker.on('message', (reply: WorkerReply) => this.settle(reply));
    this.worker.on('error', (error: Error) => this.failAll(error));
    this.worker.on('exit', (code) => this.failAll(new Error(`7-Zip worker exited (${code})`)));
    signal?.addEventListener('abort', () => this.abort(signal.reason), { once: true });
  }

  list(request: Omit<ListRequest, 'op'>): Promise<ListResult> {
    return this.send({ op: 'list', ...request }) as Promise<ListResult>;
  }

  /** The native zip path (yauzl and zlib, no 7-Zip): same answer and notifications as extract. */
  extractNativeZip(request: Omit<NativeZipRequest, 'op'>, onSettled?: (file: SettledFile) => void): Promise<ExtractResult> {
    return this.send({ op: 'native-zip', ...request }, onSettled) as Promise<ExtractResult>;
  }

  /** The native tar path (members read at their offsets, no 7-Zip): same answer and notifications as extract. */
  extractNativeTar(request: Omit<NativeTarRequest, 'op'>, onSettled?: (file: SettledFile) => void): Promise<ExtractResult> {
    return this.send({ op: 'native-tar', ...request }, onSettled) as Promise<ExtractResult>;
  }

  /** onSettled hears of each file as soon as it is final, before the run ends. */
  extract(request: Omit<ExtractRequest, 'op'>, onSettled?: (file: SettledFile) => void): Promise<ExtractResult> {
    return this.send({ op: 'extract', ...request }, onSettled) as Promise<ExtractResult>;
  }

  async close(): Promise<void> {
    this.failure ??= new Error('7-Zip worker closed');
    await this.worker.terminate();
  }

  private sevenZipReady(): Promise<void> {
    this.wasmSent ??= compiledSevenZip().then(
      (wasm) => this.worker.postMessage({ wasm }),
      (error: unknown) => this.failAll(error instanceof Error ? error : new Error(String(error))),
    );
    return this.wasmSent;
  }

  private abort(reason: unknown): void {
    this.failAll(reason instanceof Error ? reason : new Error('aborted'));
    void this.worker.terminate();
  }

  private send(request: Omit<WorkerRequest, 'id'>, onSettled?: (file: SettledFile) => void): Promise<ListResult | ExtractResult> {
    if (this.failure !== null) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onSettled });
      const post = (): void => {
        if (this.failure === null) this.worker.postMessage({ ...request, id });
      };
      // The native paths need no 7-Zip: a job that only meets plain zips and tars never compiles it.
      if (request.op === 'native-zip' || request.op === 'native-tar') post();
      else void this.sevenZipReady().then(post);
    });
  }

  private settle(reply: WorkerReply): void {
    const pending = this.pending.get(reply.id);
    if (pending === undefined) return;
    if ('settled' in reply) {
      for (const file of reply.settled) pending.onSettled?.(file);
      return;
    }
    this.pending.delete(reply.id);
    if (reply.ok) pending.resolve(reply.result);
    else pending.reject(new Error(reply.error));
  }

  private failAll(error: Error): void {
    this.failure ??= error;
    for (const pending of this.pending.values()) pending.reject(this.failure);
    this.pending.clear();
  }
}
