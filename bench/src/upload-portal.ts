// The portal under test: the real server started as `npm start` would, on an empty DATA_DIR whose
// first SysAdmin comes from ADMIN_USERNAME/ADMIN_PASSWORD, then one upload through the real route.
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { freePort, peakRssBytes, startChild, stopChild, type Child } from './upload-process.js';
import { jsonRequest, multipartFrame, streamRequest } from './upload-http.js';
import type { InputFile } from './upload-input.js';
import type { Measurement } from './upload-report.js';

const API = '/api/v1';

export async function measurePortal(input: InputFile, dataDir: string, repoRoot: string): Promise<Measurement> {
  await mkdir(dataDir, { recursive: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}${API}`;
  const admin = { username: 'bench-admin', password: `Bench-${randomBytes(12).toString('hex')}!` };
  // The bundle `npm start` runs (the bench script builds it first).
  const child = startChild(process.execPath, [path.join('server', 'dist', 'main.js')], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ADMIN_USERNAME: admin.username,
      ADMIN_PASSWORD: admin.password,
      MAX_UPLOAD_BYTES: String(Math.max(input.bytes * 2, 20 * 1024 ** 3)),
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
      { name: `bench ${input.bytes} bytes`, valid: true, status: 'Pendant' },
      token,
    );
    const projectId = (created.json as { data?: { id: number }[] } | undefined)?.data?.[0]?.id;
    if (created.status !== 201 || projectId === undefined) {
      throw new Error(`creating the project answered ${created.status}: ${JSON.stringify(created.json)}`);
    }

    const frame = multipartFrame(
      { studypetitionid: String(projectId) },
      { field: 'file', name: `bench-${input.bytes}.dcm`, contentType: 'application/dicom' },
    );
    const answer = await streamRequest(
      `${base}/upload-study-petitions-files`,
      { 'content-type': frame.contentType, authorization: `Bearer ${token}` },
      { before: frame.before, file: input.path, fileBytes: input.bytes, after: frame.after },
    );
    // Read before anything else can run in the server (processing starts after the answer).
    const peak = await peakRssBytes(child.pid);
    if (answer.status !== 201) throw new Error(`upload answered ${answer.status}: ${answer.body.slice(0, 500)}`);
    const file = (JSON.parse(answer.body) as { data: { filesize: number; sha256: string }[] }).data[0];
    if (file?.filesize !== input.bytes || file.sha256 !== input.sha256) {
      throw new Error(`the portal stored ${JSON.stringify(file)}, expected ${input.bytes} bytes, sha256 ${input.sha256}`);
    }
    return { seconds: answer.seconds, bytes: input.bytes, peakRssBytes: peak };
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n--- server output ---\n${child.output()}`, { cause: err });
  } finally {
    await stopChild(child);
  }
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
