// The reference: Orthanc (the Debian package) ingesting the same files one request each, as a PACS
// receives them, started on a free port with its storage and index in a temporary folder and its
// defaults otherwise (SQLite index, files synced as stored).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { inPool, type FileSet } from './files-input.js';
import { cpuTotal, type CaseResult } from './files-portal.js';
import { cpuSeconds, freePort, peakRssBytes, startChild, stopChild, type Child } from './upload-process.js';

/**
 * Orthanc (the Debian package) started on a free loopback port, its storage and index in `dir`,
 * its defaults otherwise; `extra` adds to its configuration (a plugin). Not yet answering: callers
 * wait with waitForOrthanc.
 */
export async function startOrthanc(dir: string, extra: Record<string, unknown> = {}): Promise<{ child: Child; port: number }> {
  const storage = path.join(dir, 'storage');
  await mkdir(storage, { recursive: true });
  const port = await freePort();
  const config = path.join(dir, 'orthanc.json');
  await writeFile(
    config,
    JSON.stringify({
      Name: 'bench',
      StorageDirectory: storage,
      IndexDirectory: storage,
      HttpPort: port,
      DicomServerEnabled: false,
      RemoteAccessAllowed: false,
      AuthenticationEnabled: false,
      Plugins: [],
      ...extra,
    }),
  );
  return { child: startChild('Orthanc', [config], { cwd: dir }), port };
}

export async function measureOrthanc(files: FileSet, dir: string, inFlight: number): Promise<CaseResult> {
  const { child, port } = await startOrthanc(dir);
  try {
    await waitForOrthanc(port, child.process, 60_000);
    const cpuBefore = await cpuSeconds(child.pid);
    const clientBefore = process.cpuUsage();
    const started = process.hrtime.bigint();
    await inPool(files.names, inFlight, async (name) => {
      const status = await post(port, '/instances', await readFile(path.join(files.dir, name)));
      if (status !== 200) throw new Error(`Orthanc answered ${status} for ${name}`);
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    // Orthanc indexes as it answers: once the last answer is in, every instance is stored.
    const serverCpuSeconds = (await cpuSeconds(child.pid)) - cpuBefore;
    const clientCpuSeconds = cpuTotal(process.cpuUsage(clientBefore));
    return { seconds, uploadSeconds: seconds, peakRssBytes: await peakRssBytes(child.pid), serverCpuSeconds, clientCpuSeconds };
  } catch (err) {
    throw new Error(`Orthanc: ${err instanceof Error ? err.message : String(err)}\n${child.output()}`, { cause: err });
  } finally {
    await stopChild(child);
  }
}

export function post(port: number, route: string, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, path: route, method: 'POST', headers: { 'content-length': String(body.length) } }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
      response.once('error', reject);
    });
    request.once('error', reject);
    request.end(body);
  });
}

export async function waitForOrthanc(port: number, proc: { exitCode: number | null }, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error('Orthanc exited during start-up');
    const up = await new Promise<boolean>((resolve) => {
      const request = http.get({ host: '127.0.0.1', port, path: '/system' }, (response) => {
        response.resume();
        resolve(response.statusCode === 200);
      });
      request.once('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('Orthanc did not answer in time');
}
