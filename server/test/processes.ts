// Runs the real entry points (server, admin CLI) as child processes, as an operator would.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { once } from 'node:events';

const SERVER_DIR = path.resolve(import.meta.dirname, '..');
const TSX = ['--import', 'tsx'];

function baseEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  // INIT_CWD from the outer npm would redirect relative paths; tests pass absolute ones.
  const { INIT_CWD: _ignored, ...rest } = process.env;
  return { ...rest, LOG_LEVEL: 'info', ...env };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function runCli(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  const child = spawn(process.execPath, [...TSX, 'src/admin/cli.ts', ...args], { cwd: SERVER_DIR, env: baseEnv(env) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  logs: () => string;
  waitForExit(): Promise<number | null>;
}

/** Starts src/main.ts and resolves once it logs that it listens. */
export async function startServerProcess(env: Record<string, string | undefined>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...TSX, 'src/main.ts'], {
    cwd: SERVER_DIR,
    env: baseEnv({ PORT: '0', HOST: '127.0.0.1', ...env }),
  });
  let output = '';
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });
  return { child, url, logs: () => output, waitForExit: () => exited };
}

/** Starts src/worker.ts (`npm run worker`) and resolves once it logs that it runs. */
export async function startWorkerProcess(env: Record<string, string | undefined>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...TSX, 'src/worker.ts'], { cwd: SERVER_DIR, env: baseEnv(env) });
  let output = '';
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output}`)), 30_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      if (output.includes('processing worker started')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code}:\n${output}`));
    });
  });
  return { child, url: '', logs: () => output, waitForExit: () => exited };
}
