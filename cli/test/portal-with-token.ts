// A running portal (the built server on a fresh SQLite data directory, as e2e starts it) with a
// User, a SysAdmin, projects, and a real upload token made through the API, written to a file.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TProjectFile } from '@portal/contract';
import { apiCreateProject, apiLogin } from '../../e2e/src/api.js';
import { startPortal, type Portal } from '../../e2e/src/portal.js';

export const PROGRAM = path.resolve(import.meta.dirname, '..', 'dist', 'portal-upload.mjs');

const USER = { username: 'cli-user', password: 'Cli-user-password-1', firstname: 'Cleo', lastname: 'Line' };
const ADMIN = { username: 'cli-admin', password: 'Cli-admin-password-1', firstname: 'Ada', lastname: 'Min' };

export interface Setup {
  portal: Portal;
  work: string;
  userToken: string;
  adminToken: string;
  tokenFile: string;
  createProject(name: string): Promise<number>;
}

async function call(url: string, method: string, route: string, session: string, body?: unknown): Promise<Record<string, unknown>> {
  const answer = await fetch(`${url}/api/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${session}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`${method} ${route} answered ${answer.status}: ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

export async function setUp(env: Record<string, string> = {}): Promise<Setup> {
  const portal = await startPortal(env);
  const companyId = await portal.createCompany('CLI Hospital');
  await portal.createUser({ companyId, ...USER, role: 'User' });
  await portal.createUser({ companyId, ...ADMIN, role: 'SysAdmin' });
  const userToken = (await apiLogin(portal.url, USER.username, USER.password)).token;
  const adminToken = (await apiLogin(portal.url, ADMIN.username, ADMIN.password)).token;
  const expires = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
  const created = (await call(portal.url, 'POST', '/tokens', userToken, { name: 'PACS export', expires_at: expires, scope: 'upload' })) as { data: { token: string }[] };
  const work = await mkdtemp(path.join(os.tmpdir(), 'portal-cli-'));
  const tokenFile = path.join(work, 'token');
  await writeFile(tokenFile, `${created.data[0]!.token}\n`);
  await chmod(tokenFile, 0o600);
  return { portal, work, userToken, adminToken, tokenFile, createProject: (name) => apiCreateProject(portal.url, userToken, name) };
}

export async function setDeidentification(setup: Setup, projectId: number): Promise<void> {
  await call(setup.portal.url, 'PUT', `/study-petitions/${projectId}/deidentification`, setup.adminToken, { profile: 'basic', options: [] });
}

export async function filesOf(setup: Setup, projectId: number): Promise<TProjectFile[]> {
  return ((await call(setup.portal.url, 'GET', `/study-petitions-files?study_petition_id=${projectId}`, setup.userToken)) as { data: TProjectFile[] }).data;
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the built program as a script would; `killWhen` is asked every 20 ms, and a yes sends `stopSignal` (a `kill -9` unless told). */
export async function runCli(args: string[], killWhen?: () => boolean, stopSignal: NodeJS.Signals = 'SIGKILL'): Promise<CliRun> {
  const child = spawn(process.execPath, [PROGRAM, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let sent = false;
  // Once: a second SIGTERM or Ctrl-C is the user insisting, and ends the program at once.
  const watch = killWhen && setInterval(() => !sent && killWhen() && (sent = child.kill(stopSignal)), 20);
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  clearInterval(watch);
  return { code, signal, stdout, stderr };
}
