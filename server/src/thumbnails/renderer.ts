// The server's side of the renderer: a child process rather than a worker thread, because what
// has crashed rendering here is native (a decoder's WebAssembly abort, libvips) and a fault there
// takes a whole process down: a thread's would be the server's. The child's V8 heap is capped
// (--max-old-space-size) and each render has a time limit; a crash, a hang or a refusal becomes a
// reason in words for that series, never a failed job.
import { fork, spawn, type ChildProcess, type ForkOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RenderAnswer, RenderRequest } from './render-worker.js';

export const RENDERER_FAILED = 'The image could not be drawn: the renderer stopped on this file';
export const RENDERER_TIMED_OUT = 'The image took too long to draw';

export interface RendererOptions {
  timeLimitMs: number;
  heapMb: number;
}

export type Rendered = { image: Uint8Array } | { reason: string };

function workerModule(): URL {
  const built = new URL('./render-worker.js', import.meta.url);
  return existsSync(fileURLToPath(built)) ? built : new URL('./render-worker.ts', import.meta.url);
}

/** Run from source (tests, `npm run dev`): the child loads tsx first. */
function tsxBootstrap(module: URL): string {
  const tsxRoot = path.dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const tsx = pathToFileURL(path.join(tsxRoot, 'dist/esm/api/index.mjs')).href;
  return `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(module.href)}); })`;
}

function spawnRenderer(heapMb: number): ChildProcess {
  const module = workerModule();
  const execArgv = [`--max-old-space-size=${heapMb}`];
  const options: ForkOptions = { serialization: 'advanced', stdio: ['ignore', 'ignore', 'ignore', 'ipc'], execArgv };
  if (!module.href.endsWith('.ts')) return fork(fileURLToPath(module), [], options);
  return spawn(process.execPath, [...execArgv, '--input-type=module', '--eval', tsxBootstrap(module)], options);
}

/** One renderer process for a job's series, started when first needed and again after a crash. */
export class Renderer {
  #child: ChildProcess | null = null;
  #next = 1;

  constructor(private readonly options: RendererOptions) {}

  async render(bytes: Uint8Array, signal: AbortSignal): Promise<Rendered> {
    const child = (this.#child ??= spawnRenderer(this.options.heapMb));
    const id = this.#next++;
    return new Promise<Rendered>((resolve, reject) => {
      const settle = (outcome: Rendered | Error, kill: boolean) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        signal.removeEventListener('abort', onAbort);
        if (kill) this.#stop(child);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      const onMessage = (answer: RenderAnswer) => {
        if (answer.id !== id) return;
        settle('image' in answer ? { image: answer.image } : { reason: answer.reason }, false);
      };
      const onExit = () => settle({ reason: RENDERER_FAILED }, true);
      const onAbort = () => settle(signal.reason instanceof Error ? signal.reason : new Error('aborted'), true);
      const timer = setTimeout(() => settle({ reason: RENDERER_TIMED_OUT }, true), this.options.timeLimitMs);
      child.on('message', onMessage);
      child.once('exit', onExit);
      signal.addEventListener('abort', onAbort, { once: true });
      child.send({ id, bytes } satisfies RenderRequest, (err) => {
        if (err) settle({ reason: RENDERER_FAILED }, true);
      });
    });
  }

  close(): void {
    if (this.#child) this.#stop(this.#child);
  }

  #stop(child: ChildProcess): void {
    if (this.#child === child) this.#child = null;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
