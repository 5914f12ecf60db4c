// The portal under test: the real server started as `npm start` would, on an empty DATA_DIR whose
// first SysAdmin comes from ADMIN_USERNAME/ADMIN_PASSWORD, signed in, with one project to upload to.
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { cpuSeconds, mainThreadCpuSeconds, threadCpuSeconds, freePort, peakRssBytes, startChild, stopChild, type Child } from './upload-process.js';
import { jsonRequest } from './upload-http.js';
import type { InputFile } from './upload-input.js';
import { readStartCommand } from '../../server/scripts/start-command.js';
import { withoutS3 } from './s3-settings.js';
import type { Measurement } from './upload-report.js';

const API = '/api/v1';

export interface Portal {
  child: Child;
  /** http://127.0.0.1:<port>/api/v1 */
  base: string;
  token: string;
  projectId: number;
}

export interface StoredFile {
  filesize: number;
  sha256: string;
}

/** One upload through the portal as the client saw it, and the file the portal says it stored. */
export interface PortalUpload {
  seconds: number;
  clientCpuSeconds: number;
  /** From the last byte sent to the answer (of the last request), seconds. */
  tailSeconds: number;
  file: StoredFile;
}

/** Settings that make the portal store in S3; none: DATA_DIR/objects. */
export type StorageEnv = Record<string, string>;


export async function startPortal(dataDir: string, repoRoot: string, maxUploadBytes: number, storageEnv: StorageEnv = {}): Promise<Portal> {
  await mkdir(dataDir, { recursive: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}${API}`;
  const admin = { username: 'bench-admin', password: `Bench-${randomBytes(12).toString('hex')}!` };
  // The bundle `npm start` runs (the bench script builds it first), with the Node flags it runs it with.
  const start = await readStartCommand(path.join(repoRoot, 'server'), 'start');
  const flags = [...start.options, ...(process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean)];
  const child = startChild(process.execPath, [...flags, path.join('server', 'dist', 'main.js')], {
    cwd: repoRoot,
    env: {
      ...withoutS3(process.env),
      ...start.env,
      ...storageEnv,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ADMIN_USERNAME: admin.username,
      ADMIN_PASSWORD: admin.password,
      MAX_UPLOAD_BYTES: String(maxUploadBytes),
    },
  });
  try {
    await waitUntilHealthy(child, base, 120_000);
    const login = await jsonRequest(`${base}/login`, 'POST', admin);
    const token = (login.json as { token?: string } | undefined)?.token;
    if (login.status !== 200 || token === undefined) throw new Error(`login answered ${login.status}`);
    const created = await jsonRequest(
      `${base}/study-petitions`,
      'POST',
      { name: 'bench', valid: true, status: 'Pendant' },
      token,
    );
    const projectId = (created.json as { data?: { id: number }[] } | undefined)?.data?.[0]?.id;
    if (created.status !== 201 || projectId === undefined) {
      throw new Error(`creating the project answered ${created.status}: ${JSON.stringify(created.json)}`);
    }
    return { child, base, token, projectId };
  } catch (err) {
    await stopChild(child);
    throw withServerOutput(err, child);
  }
}


/**
 * Runs `upload` against a fresh portal and measures it. `upload` resolves with what the portal
 * reports having stored, which must be the input's size and SHA-256; the peak RSS is read as soon
 * as it resolves, before the processing job that follows can run.
 */
export async function measurePortal(
  input: InputFile,
  dataDir: string,
  repoRoot: string,
  upload: (portal: Portal) => Promise<PortalUpload>,
  storageEnv: StorageEnv = {},
): Promise<Measurement> {
  const portal = await startPortal(dataDir, repoRoot, Math.max(input.bytes * 2, 20 * 1024 ** 3), storageEnv);
  try {
    const cpuBefore = await cpuSeconds(portal.child.pid);
    const mainBefore = await mainThreadCpuSeconds(portal.child.pid);
    const threadsBefore = process.env.BENCH_THREADS ? await threadCpuSeconds(portal.child.pid) : undefined;
    const result = await upload(portal);
    const peak = await peakRssBytes(portal.child.pid);
    const serverCpuSeconds = (await cpuSeconds(portal.child.pid)) - cpuBefore;
    const serverMainCpuSeconds = (await mainThreadCpuSeconds(portal.child.pid)) - mainBefore;
    const threadsAfter = threadsBefore && (await threadCpuSeconds(portal.child.pid));
    const { file } = result;
    if (file.filesize !== input.bytes || file.sha256 !== input.sha256) {
      throw new Error(`the portal stored ${JSON.stringify(file)}, expected ${input.bytes} bytes, sha256 ${input.sha256}`);
    }
    return {
      seconds: result.seconds,
      bytes: input.bytes,
      peakRssBytes: peak,
      serverCpuSeconds,
      serverMainCpuSeconds,
      clientCpuSeconds: result.clientCpuSeconds,
      tailSeconds: result.tailSeconds,
      ...(threadsBefore && threadsAfter ? { serverThreadCpuSeconds: threadCpuSpent(threadsBefore, threadsAfter) } : {}),
    };
  } catch (err) {
    throw withServerOutput(err, portal.child);
  } finally {
    await stopChild(portal.child);
  }
}

/** BENCH_THREADS=1: where the server's CPU went, by thread name (main, libuv pool, V8 helpers). */
function threadCpuSpent(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  return new Map([...after].map(([name, s]) => [name, s - (before.get(name) ?? 0)] as const).filter(([, s]) => s > 0));
}

function withServerOutput(err: unknown, child: Child): Error {
  return new Error(`${err instanceof Error ? err.message : String(err)}\n--- server output ---\n${child.output()}`, { cause: err });
}

async function waitUntilHealthy(child: Child, base: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null) throw new Error('the server exited during start-up');
    try {
      if ((await jsonRequest(`${base}/health`, 'GET', undefined)).status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('the server did not become healthy in time');
}
