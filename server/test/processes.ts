// Runs the real entry points (server, admin CLI) as child processes, as an operator would.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { bundleServer } from '../scripts/bundle.js';
import { readStartCommand } from '../scripts/start-command.js';
import { inject } from 'vitest';
import { TEST_POLL_MS } from './job-poll.js';

const SERVER_DIR = path.resolve(import.meta.dirname, '..');
/** An entry point of src/, bundled for this run by the global setup (as `npm run build` bundles it). */
const entry = (name: 'main' | 'worker' | 'cli') => path.join(inject('entryBundleDir'), `${name}.js`);

function baseEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  // INIT_CWD from the outer npm would redirect relative paths; tests pass absolute ones.
  const { INIT_CWD: _ignored, ...rest } = process.env;
  return { ...rest, LOG_LEVEL: 'info', JOB_POLL_MILLISECONDS: String(TEST_POLL_MS), ...env };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the bundled admin CLI as a process, as `npm run admin` does; `input`, when given, is its
 * standard input (otherwise stdin is closed). admin-cli.ts's runCli runs the same code in process.
 */
export async function spawnCli(args: string[], env: Record<string, string | undefined>, input?: string): Promise<CliResult> {
  const child = spawn(process.execPath, [entry('cli'), ...args], { cwd: SERVER_DIR, env: baseEnv(env) });
  child.stdin.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/**
 * Runs the admin CLI on a pseudo-terminal (util-linux `script`), as a person at a terminal would,
 * typing `lines` at its prompts. Answers everything the terminal showed.
 */
export async function runCliOnTerminal(args: string[], env: Record<string, string | undefined>, lines: string[]): Promise<CliResult> {
  const command = [process.execPath, entry('cli'), ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: SERVER_DIR, env: baseEnv(env) });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stdout += d.toString()));
  const prompts = () => (stdout.match(/Password: |Repeat the password: /g) ?? []).length;
  for (const [answered, line] of lines.entries()) {
    // Each answer waits for its prompt, as typing would.
    for (let waited = 0; prompts() <= answered && waited < 30_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    child.stdin.write(`${line}\r`);
  }
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr: '' };
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  logs: () => string;
  waitForExit(): Promise<number | null>;
}

/**
 * Starts an entry point and resolves once its output matches `ready`, with that match; rejects
 * with everything it printed if it exits first or stays silent for 30 s.
 */
async function startEntry(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<{ process: Omit<ServerProcess, 'url'>; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, { cwd: SERVER_DIR, env });
  let output = '';
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${output}`)), 30_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      const found = ready.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before it was ready:\n${output}`));
    });
  });
  return { process: { child, logs: () => output, waitForExit: () => exited }, match };
}

/** Starts src/main.ts (bundled) and resolves once it logs that it listens. */
export async function startServerProcess(env: Record<string, string | undefined>): Promise<ServerProcess> {
  const { process: server, match } = await startEntry(
    'server',
    [entry('main')],
    baseEnv({ PORT: '0', HOST: '127.0.0.1', ...env }),
    /Server listening at (http:\/\/127\.0\.0\.1:\d+)/,
  );
  return { ...server, url: match[1]! };
}

/** Starts src/worker.ts (bundled; `npm run worker`) and resolves once it logs that it runs. */
export async function startWorkerProcess(env: Record<string, string | undefined>): Promise<ServerProcess> {
  const { process: worker } = await startEntry('worker', [entry('worker')], baseEnv(env), /processing worker started/);
  return { ...worker, url: '' };
}

/**
 * Bundles the server as `npm run build` does, into a scratch folder under node_modules/.cache (so
 * its dependencies resolve as they do from dist/), and runs it with the Node options of `npm start`
 * and environment (server/package.json): what an operator runs, whose memory the documented bounds
 * are about.
 */
export async function startBundledServer(env: Record<string, string | undefined>): Promise<ServerProcess & { cleanup(): Promise<void> }> {
  const cache = path.join(SERVER_DIR, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  const outdir = await mkdtemp(path.join(cache, 'bundled-server-'));
  try {
    await bundleServer({ absWorkingDir: SERVER_DIR, entryPoints: ['src/main.ts', 'src/ingest/extract/sevenzip/sevenzip-worker.ts', 'src/thumbnails/thumbnail-process.ts'], outdir });
    const { env: startEnv, options } = await readStartCommand(SERVER_DIR, 'start');
    const { process: server, match } = await startEntry(
      'bundled server',
      [...options, path.join(outdir, 'main.js')],
      baseEnv({ PORT: '0', HOST: '127.0.0.1', ...startEnv, ...env }),
      /Server listening at (http:\/\/127\.0\.0\.1:\d+)/,
    );
    return { ...server, url: match[1]!, cleanup: () => rm(outdir, { recursive: true, force: true }) };
  } catch (error) {
    await rm(outdir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The bundle an operator runs, as `npm start` and `npm run worker` run it (dist/main.js and
 * dist/worker.js, built by `npm run build`, with those scripts' options and environment), rather
 * than the sources through tsx.
 */
export async function startDistServer(env: Record<string, string | undefined>): Promise<ServerProcess> {
  const start = await readStartCommand(SERVER_DIR, 'start');
  const { process: server, match } = await startEntry(
    'server',
    [...start.options, 'dist/main.js'],
    baseEnv({ PORT: '0', HOST: '127.0.0.1', ...start.env, ...env }),
    /Server listening at (http:\/\/127\.0\.0\.1:\d+)/,
  );
  return { ...server, url: match[1]! };
}

export async function startDistWorker(env: Record<string, string | undefined>): Promise<ServerProcess> {
  const worker = await readStartCommand(SERVER_DIR, 'worker');
  const { process: started } = await startEntry('worker', [...worker.options, 'dist/worker.js'], baseEnv({ ...worker.env, ...env }), /processing worker started/);
  return { ...started, url: '' };
}
