// Runs the portal as an operator would: the bundled server on its own port and data directory,
// and the admin CLI against the same database to create the company and users a test needs.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { readStartCommand } from '../../server/scripts/start-command.js';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');

/**
 * The tus chunk size (UPLOAD_CHUNK_BYTES) the upload tests start their portal with: a quarter of
 * the server's 256 MiB default, so a file of two chunks stays small, and since the PATCH
 * boundaries they hold exist only at this size, they also prove the browser follows the server.
 */
export const E2E_CHUNK_BYTES = 64 * 1024 * 1024;
const SERVER_BUNDLE = path.join(REPO_ROOT, 'server', 'dist', 'main.js');
const WEB_DIST = path.join(REPO_ROOT, 'web', 'dist');
// The bundled CLI `npm run admin` runs (built with the server): no TypeScript to compile per call.
const CLI = path.join(REPO_ROOT, 'server', 'dist', 'cli.js');

export interface Portal {
  url: string;
  dataDir: string;
  logs: () => string;
  createCompany(name: string): Promise<number>;
  createUser(user: NewUser): Promise<number>;
  stop(): Promise<void>;
}

export interface NewUser {
  companyId: number;
  username: string;
  password: string;
  firstname: string;
  lastname: string;
  role: 'User' | 'CompanyAdmin' | 'SysUser' | 'SysAdmin';
  email?: string;
}

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  // INIT_CWD from the outer npm would make the server resolve relative paths elsewhere;
  // every path given here is absolute anyway.
  const { INIT_CWD: _initCwd, DATABASE_URL: _databaseUrl, ...rest } = process.env;
  return { ...rest, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...extra };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP port was assigned');
  return address.port;
}

async function waitUntilReady(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${output()}`);
    try {
      const answer = await fetch(`${url}/api/v1/ready`);
      if (answer.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server did not become ready within 30 s:\n${output()}`);
}

async function run(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`admin CLI ${args[0]} failed (${code}):\n${stdout}${stderr}`);
  return stdout.trim();
}

function parseId(output: string, what: string): number {
  const match = /(\d+)\s*$/.exec(output);
  if (!match?.[1]) throw new Error(`admin CLI printed no ${what} id: ${output}`);
  return Number(match[1]);
}

/** Starts the built server with a fresh SQLite data directory; `extraEnv` overrides settings. */
export async function startPortal(extraEnv: Record<string, string> = {}): Promise<Portal> {
  for (const built of [SERVER_BUNDLE, CLI, path.join(WEB_DIST, 'index.html')]) {
    if (!existsSync(built)) throw new Error(`${built} is missing: run \`npm run build\` at the repository root first`);
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'portal-e2e-'));
  const port = await freePort();
  // With `npm start`'s Node options and environment, so the browser meets what an operator runs.
  const start = await readStartCommand(path.join(REPO_ROOT, 'server'), 'start');
  const env = childEnv({ ...start.env, PORT: String(port), DATA_DIR: dataDir, WEB_DIST_DIR: WEB_DIST, ...extraEnv });
  const child = spawn(process.execPath, [...start.options, SERVER_BUNDLE], { cwd: REPO_ROOT, env });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = once(child, 'exit');
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(url, child, () => output);
  } catch (error) {
    child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }

  return {
    url,
    dataDir,
    logs: () => output,
    createCompany: async (name) => parseId(await run(['create-company', '--name', name], env), 'company'),
    createUser: async (u) =>
      parseId(
        await run(
          ['create-user', '--company-id', String(u.companyId), '--username', u.username, '--password', u.password,
            '--firstname', u.firstname, '--lastname', u.lastname, '--role', u.role, ...(u.email ? ['--email', u.email] : [])],
          env,
        ),
        'user',
      ),
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
