// The job's handle on its extraction: a worker thread for the native zip and tar paths, and a child
// process for 7-Zip (sevenzip-process.ts), each started when first needed and ended on abort or
// when the job is done.
import { fork, spawn, type ChildProcess, type ForkOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import type {
  ExtractRequest,
  ExtractResult,
  ListRequest,
  ListResult,
  SettledFile,
  NativeZipRequest,
  NativeTarRequest,
  ProcessMessage,
  WorkerReply,
  WorkerRequest,
} from './sevenzip-protocol.js';
import { spawnSevenZipThread, tsxBootstrap, workerModule } from './sevenzip-thread.js';

type Pending = {
  resolve: (value: ListResult | ExtractResult) => void;
  reject: (error: Error) => void;
  onSettled?: (file: SettledFile) => void;
};

/**
 * 7-Zip runs in a process of its own, not in the server's: listing and extracting a 7z of 100,000
 * entries grew the server's C allocator by ~30 MB (V8 compiling and optimising 7-Zip's WebAssembly
 * as it ran, 7-Zip's ~12 lines of listing per entry) and its WebAssembly memory by ~12 MB, none of
 * which a process gives back while it lives: the server's peak went from ~140 to 208–237 MB.
 * The process starts with the server's Node options and environment (`npm start`'s), for the
 * price of a Node start and of compiling 7-Zip once per job (docs/processing.md, "7z").
 */
function spawnSevenZipProcess(): ChildProcess {
  const module = workerModule();
  // A debugger's flags stay with the server: the child would try to open the same port and fail.
  const execArgv = process.execArgv.filter((flag) => !/^--inspect(-brk|-port|-wait)?(=|$)/.test(flag));
  const options: ForkOptions = { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv };
  if (!module.href.endsWith('.ts')) return fork(fileURLToPath(module), [], options);
  return spawn(process.execPath, ['--input-type=module', '--eval', tsxBootstrap(module)], options);
}

/** Passes raises of a run's shared credit on to the 7-Zip process until `running` is false. */
async function forwardCredit(credit: Int32Array<SharedArrayBuffer>, running: () => boolean, raise: (allowed: number) => void): Promise<void> {
  let sent = Atomics.load(credit, 0);
  while (running()) {
    // Timed, so that the loop sees the run end even when the credit is never raised again.
    const waited = Atomics.waitAsync(credit, 0, sent, 1000);
    if (waited.async) await waited.value;
    const allowed = Atomics.load(credit, 0);
    if (allowed !== sent && running()) raise((sent = allowed));
  }
}

export class SevenZipWorker {
  private thread: Worker | null = null;
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure: Error | null = null;

  constructor(signal?: AbortSignal) {
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
    await this.end();
  }

  private async end(): Promise<void> {
    const child = this.child;
    if (child !== null && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    }
    await this.thread?.terminate();
  }

  private abort(reason: unknown): void {
    this.failAll(reason instanceof Error ? reason : new Error('aborted'));
    void this.end();
  }

  private threadFor(): Worker {
    if (this.thread === null) {
      const thread = spawnSevenZipThread();
      thread.on('message', (reply: WorkerReply) => this.settle(reply));
      thread.on('error', (error: Error) => this.failAll(error));
      thread.on('exit', (code) => this.failAll(new Error(`7-Zip worker exited (${code})`)));
      this.thread = thread;
    }
    return this.thread;
  }

  private processFor(): ChildProcess {
    if (this.child === null) {
      const child = spawnSevenZipProcess();
      child.on('message', (reply: WorkerReply) => this.settle(reply));
      child.on('error', (error: Error) => this.failAll(error));
      child.on('exit', (code, signal) => this.failAll(new Error(`7-Zip process exited (${code ?? signal})`)));
      this.child = child;
    }
    return this.child;
  }

  private toProcess(message: ProcessMessage): void {
    this.processFor().send(message, (error) => {
      if (error !== null) this.failAll(error);
    });
  }

  private send(request: Omit<WorkerRequest, 'id'>, onSettled?: (file: SettledFile) => void): Promise<ListResult | ExtractResult> {
    if (this.failure !== null) return Promise.reject(this.failure);
    const id = this.nextId++;
    const answered = new Promise<ListResult | ExtractResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onSettled });
    });
    // The native paths need no 7-Zip: a job that only meets plain zips and tars starts no process.
    if (request.op === 'native-zip' || request.op === 'native-tar') {
      this.threadFor().postMessage({ ...request, id });
      return answered;
    }
    const credit = request.op === 'extract' ? (request as ExtractRequest).credit : undefined;
    const forwarded = { ...request, id, credit: undefined } as WorkerRequest;
    this.toProcess({ request: forwarded, creditFrom: credit === undefined ? null : Atomics.load(credit, 0) });
    if (credit !== undefined) {
      void forwardCredit(credit, () => this.pending.has(id), (allowed) => this.toProcess({ creditOf: id, allowed }));
    }
    return answered;
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
