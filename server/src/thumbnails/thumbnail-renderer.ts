// The server's side of the thumbnail renderer: one shared process (thumbnail-process.ts), started
// when a picture is asked for, at nice 10, ended after 30 s without work. Each picture has a time
// limit and the process a memory limit (its resident size, watched while it draws): past either,
// or when the process dies, the picture fails with words and the next one starts a new process.
// Why a process and not a thread: a codec's crash (a WebAssembly trap, a native abort in sharp)
// or a runaway allocation would take the server with it (docs/processing.md, "Thumbnails").
import { fork, spawn, type ChildProcess, type ForkOptions } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { tsxBootstrap } from '../ingest/index.js';
import type { RenderReply, RenderRequest } from './thumbnail-protocol.js';

export interface RendererOptions {
  /** How long one picture may take. */
  timeoutMs?: number;
  /** The process's resident memory above which it is ended. */
  memoryBytes?: number;
  /** How long the process waits for the next picture before it ends. */
  idleMs?: number;
}

export const RENDER_TIMEOUT_MS = 20_000;
export const RENDER_MEMORY_BYTES = 768 * 1024 * 1024;
export const RENDER_IDLE_MS = 30_000;
/** How often the process's memory is read while it draws. */
const MEMORY_CHECK_MS = 100;

export type Rendered = { ok: true; picture: Buffer; width: number; height: number; mime: string } | { ok: false; reason: string; detail: string };

/** The renderer process's module, beside this one: TypeScript under tsx or vitest, JavaScript in the bundle. */
function processModule(): URL {
  return import.meta.url.endsWith('.ts') ? new URL('./thumbnail-process.ts', import.meta.url) : new URL('./thumbnail-process.js', import.meta.url);
}

function spawnRenderer(): ChildProcess {
  const module = processModule();
  const execArgv = ['--max-old-space-size=256'];
  // Its standard output is the codecs' chatter ('Invalid vr type…'); its errors go to the server's.
  const options: ForkOptions = { serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv };
  const child = module.href.endsWith('.ts') ? spawn(process.execPath, [...execArgv, '--input-type=module', '--eval', tsxBootstrap(module)], options) : fork(fileURLToPath(module), [], options);
  try {
    // Below the server's requests and the processing jobs: a thumbnail can wait.
    if (child.pid !== undefined) os.setPriority(child.pid, 10);
  } catch {
    // A system that refuses leaves it at the server's priority.
  }
  return child;
}

async function residentBytes(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb === undefined ? 0 : Number(kb) * 1024;
  } catch {
    return 0;
  }
}

export class ThumbnailRenderer {
  private child: ChildProcess | null = null;
  /** Settles when the current process listens (its first message), or fails when it dies first. */
  private ready: Promise<boolean> = Promise.resolve(false);
  private sent = false;
  private idleTimer: NodeJS.Timeout | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private readonly timeoutMs: number;
  private readonly memoryBytes: number;
  private readonly idleMs: number;

  constructor(options: RendererOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? RENDER_TIMEOUT_MS;
    this.memoryBytes = options.memoryBytes ?? RENDER_MEMORY_BYTES;
    this.idleMs = options.idleMs ?? RENDER_IDLE_MS;
  }

  /** The running process's id, or null (for the tests that end it from outside). */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Whether the process has a picture to draw now. */
  get drawing(): boolean {
    return this.sent;
  }

  /** Draws one frame (from 0) of a DICOM instance, at most `maxSide` on its long side; one picture at a time. */
  render(bytes: Uint8Array, frame: number, maxSide: number): Promise<Rendered> {
    const run = this.queue.then(() => this.renderNow(bytes, frame, maxSide));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Ends the process now (the server stops). */
  close(): void {
    this.stopIdleTimer();
    this.child?.kill('SIGKILL');
    this.child = null;
  }

  private processFor(): ChildProcess {
    if (this.child === null || this.child.exitCode !== null || this.child.signalCode !== null) {
      const child = spawnRenderer();
      child.on('exit', () => {
        if (this.child === child) this.child = null;
      });
      // An error is also told by 'exit' (or by the render waiting on it): no unhandled event.
      child.on('error', () => undefined);
      // The server may exit while the process waits for work.
      child.unref();
      (child.channel as { unref?: () => void } | undefined)?.unref?.();
      this.ready = new Promise<boolean>((resolve) => {
        const onReady = (message: unknown) => {
          if (typeof message === 'object' && message !== null && 'ready' in message) {
            child.off('message', onReady);
            resolve(true);
          }
        };
        child.on('message', onReady);
        child.once('exit', () => resolve(false));
      });
      this.child = child;
    }
    return this.child;
  }

  private async renderNow(bytes: Uint8Array, frame: number, maxSide: number): Promise<Rendered> {
    this.stopIdleTimer();
    const child = this.processFor();
    const id = this.nextId++;
    (child.channel as { ref?: () => void } | undefined)?.ref?.();
    const startedAt = Date.now();
    const listening = await Promise.race([this.ready, new Promise<false>((resolve) => setTimeout(() => resolve(false), this.timeoutMs).unref())]);
    if (!listening) {
      if (this.child === child) this.close();
      return { ok: false, reason: 'The thumbnail renderer could not be started.', detail: `renderer not ready after ${Date.now() - startedAt} ms` };
    }
    return new Promise<Rendered>((resolve) => {
      let done = false;
      const finish = (result: Rendered, kill: boolean) => {
        if (done) return;
        done = true;
        this.sent = false;
        clearTimeout(timer);
        clearInterval(watch);
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (kill) {
          child.kill('SIGKILL');
          if (this.child === child) this.child = null;
        } else {
          (child.channel as { unref?: () => void } | undefined)?.unref?.();
          this.startIdleTimer();
        }
        resolve(result);
      };
      const onMessage = (reply: RenderReply) => {
        if (reply.id !== id) return;
        if (reply.ok) finish({ ok: true, picture: Buffer.from(reply.picture), width: reply.width, height: reply.height, mime: reply.mime }, false);
        else finish({ ok: false, reason: reply.reason, detail: reply.detail }, false);
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
        finish({ ok: false, reason: 'The thumbnail renderer stopped while drawing this series’ picture (the file may hold something it cannot handle).', detail: `renderer exited (${code ?? signal})` }, false);
      const timer = setTimeout(
        () => finish({ ok: false, reason: `The thumbnail renderer took longer than ${Math.round(this.timeoutMs / 1000)} seconds for this series’ picture and was stopped.`, detail: 'timeout' }, true),
        this.timeoutMs,
      );
      const watch = setInterval(() => {
        const pid = child.pid;
        if (pid === undefined) return;
        void residentBytes(pid).then((used) => {
          if (used > this.memoryBytes) {
            finish({ ok: false, reason: 'The thumbnail renderer needed more memory than it is allowed for this series’ picture and was stopped.', detail: `memory ${used} bytes` }, true);
          }
        });
      }, MEMORY_CHECK_MS);
      child.on('message', onMessage);
      child.once('exit', onExit);
      this.sent = true;
      child.send({ id, bytes, frame, maxSide } satisfies RenderRequest, (error) => {
        if (error) finish({ ok: false, reason: 'The thumbnail renderer could not be started.', detail: error.message }, true);
      });
    });
  }

  private startIdleTimer(): void {
    this.stopIdleTimer();
    this.idleTimer = setTimeout(() => this.close(), this.idleMs);
    this.idleTimer.unref();
  }

  private stopIdleTimer(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}
