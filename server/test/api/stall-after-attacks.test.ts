// Issue 31, item 12: a multipart upload that stalls after its first 8 KB is answered 408 after the
// idle timeout, also when it comes after the hostile sequence that once left it open (throttled
// logins, refused uploads, a zip bomb, a zip of many entries), on a real listening server with its
// job runner, on SQLite and PostgreSQL. The sizes are smaller than the attack's, the shapes the same.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { buildNestedZips } from '../nested-zips.js';
import { startTestServer, type TestServer } from '../server.js';
import { answerOf, dicomFixture, expectNoLeftovers, openUploadRequest, upload } from '../uploads.js';

const CT = dicomFixture('s01_CT_small.dcm');
const MB = 1024 * 1024;
const IDLE_SECONDS = 2;
/** STALL_FULL=1: the attack's own sizes and the default limits (a minute more, for a run by hand). */
const FULL = process.env.STALL_FULL === '1';
const ENTRIES = FULL ? 100_001 : 2_001;
const BOUNDARY = 'stall-boundary';
/** libuv's thread pool (UV_THREADPOOL_SIZE, 4 unless set). */
const POOL_THREADS = Number(process.env.UV_THREADPOOL_SIZE ?? 4);

let scratch: string;
let bomb: Buffer;
let many: Buffer;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-stall-'));
  bomb = fs.readFileSync(buildNestedZips(fs.mkdtempSync(path.join(scratch, 'bomb-')), FULL ? { levels: 4, width: 16, leafBytes: 200 * MB } : { levels: 4, width: 4, leafBytes: 20 * MB }));
  fs.writeFileSync(path.join(scratch, 'entry.txt'), 'a tiny entry\n');
  const lines = Array.from({ length: ENTRIES }, (_, i) => `n${String(i).padStart(6, '0')}.txt type=file mode=0644 contents=entry.txt`);
  fs.writeFileSync(path.join(scratch, 'spec.mtree'), `#mtree\n${lines.join('\n')}\n`);
  execFileSync('bsdtar', ['--format', 'zip', '-cf', 'many.zip', '@spec.mtree'], { cwd: scratch });
  many = fs.readFileSync(path.join(scratch, 'many.zip'));
}, 120_000);
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** A form sent by fetch: `order` decides whether the file part comes first. */
async function sendForm(
  api: string,
  token: string | undefined,
  file: { name: string; data: Buffer },
  projectId: number,
  order: 'field-first' | 'file-first' = 'field-first',
): Promise<number> {
  const form = new FormData();
  if (order === 'field-first') form.append('studypetitionid', String(projectId));
  form.append('file', new Blob([new Uint8Array(file.data)]), file.name);
  if (order === 'file-first') form.append('studypetitionid', String(projectId));
  const response = await fetch(`${api}/upload-study-petitions-files`, {
    method: 'POST',
    headers: token ? { authorization: `Bearer ${token}` } : {},
    body: form,
  });
  await response.arrayBuffer();
  return response.status;
}

/** Headers, the project field and 8 KB of a real DICOM under a Content-Length of 100 MB, then nothing. */
async function stall(api: string, token: string, projectId: number): Promise<{ status: number | undefined; elapsedMs: number }> {
  const started = Date.now();
  const req = openUploadRequest(api, token, BOUNDARY, 100 * MB);
  const answered = answerOf(req);
  req.write(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="studypetitionid"\r\n\r\n${projectId}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="stalled.dcm"\r\nContent-Type: application/dicom\r\n\r\n`,
  );
  req.write(CT.subarray(0, 8 * 1024));
  const answer = await answered;
  req.destroy();
  return { status: answer.status, elapsedMs: Date.now() - started };
}

describe.each(dialects())('a stalled upload after a hostile sequence on %s', (dialect) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(
      dialect,
      {
        TRUST_PROXY: 'true',
        UPLOAD_IDLE_TIMEOUT_SECONDS: String(IDLE_SECONDS),
        ...(FULL ? {} : { MAX_ARCHIVES_PER_UPLOAD: '40', MAX_ARCHIVE_ENTRIES: String(ENTRIES - 1) }),
      },
      { jobs: true },
    );
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers 408 after the idle timeout, whatever came before', async () => {
    const a = await makeCompany(server.services);
    const b = await makeCompany(server.services);
    const victim = await makeUser(server.services, { company: a });
    const other = await makeUser(server.services, { company: a });
    const uploader = await makeUser(server.services, { company: a });
    const token = await login(server.api, uploader.username, PASSWORD);
    const sysToken = await login(server.api, (await makeUser(server.services, { company: a, role: ROLES.SysUser })).username, PASSWORD);
    const tokenB = await login(server.api, (await makeUser(server.services, { company: b })).username, PASSWORD);
    const project = await makeProject(server.services, a);
    const projectB = await makeProject(server.services, b);

    // Before anything: the stall alone is answered on time.
    const alone = await stall(server.api, token, project.id);
    expect(alone.status).toBe(408);

    const loginAs = (username: string, address: string) =>
      call(`${server.api}/login`, { json: { username, password: 'wrong-Passw0rd!' }, headers: { 'x-forwarded-for': address } });
    await Promise.all(Array.from({ length: 60 }, () => loginAs(victim.username, '198.51.100.7')));
    for (let i = 0; i < 15; i += 1) {
      await call(`${server.api}/password_reset`, { token, json: { userid: uploader.id, old_password: `wrong-${i}-Passw0rd!`, new_password: 'N3w!Passw0rd-x' } });
    }
    for (let i = 0; i < 8; i += 1) await loginAs(other.username, '203.0.113.9');

    for (const size of [300 * 1024, 50 * MB]) {
      const exe = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(size - 2)]);
      expect(await sendForm(server.api, token, { name: 'setup.exe', data: exe }, project.id)).toBe(415);
      expect(await sendForm(server.api, undefined, { name: 'a.dcm', data: exe }, project.id)).toBe(401);
    }
    expect(await sendForm(server.api, sysToken, { name: 'a.dcm', data: Buffer.concat([CT, Buffer.alloc(50 * MB)]) }, project.id, 'file-first')).toBe(403);
    const noBoundary = await fetch(`${server.api}/upload-study-petitions-files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'multipart/form-data' },
      body: `--x\r\nContent-Disposition: form-data; name="studypetitionid"\r\n\r\n${project.id}\r\n--x--\r\n`,
    });
    expect(noBoundary.status).toBe(400);
    expect((await upload(server.api, token, { name: 'report\u202Egpj.dcm', data: CT }, project.id)).status).toBe(201);
    expect((await upload(server.api, token, { name: 'bomb.zip', data: bomb }, project.id)).status).toBe(201);
    expect((await upload(server.api, tokenB, { name: 'ct.dcm', data: CT }, projectB.id)).status).toBe(201);
    expect((await upload(server.api, token, { name: 'many.zip', data: many }, project.id)).status).toBe(201);

    const after = await stall(server.api, token, project.id);
    expect(after.status).toBe(408);
    expect(after.elapsedMs).toBeGreaterThanOrEqual(IDLE_SECONDS * 1000 - 100);
    expect(after.elapsedMs).toBeLessThan(IDLE_SECONDS * 1000 + 3000);
    }, 900_000);

  it('answers 408 after the idle timeout while the thread pool the disk waits on is busy', async () => {
    // A portal of its own: the archives of the case above may still be unpacking into the other's
    // DATA_DIR, and only what this stalled upload leaves is looked for here.
    const server = await startTestServer(dialect, { UPLOAD_IDLE_TIMEOUT_SECONDS: String(IDLE_SECONDS) });
    onTestFinished(() => server.close());
    const company = await makeCompany(server.services);
    const token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    const project = await makeProject(server.services, company);
    // Every thread of libuv's pool held, as an archive's extraction or many sign-ins at once hold
    // them: each opens a FIFO no one writes to yet, so every file operation of the stalled upload
    // waits behind it, for as long as the test wants and without taking the CPU from anything else.
    const fifos = Array.from({ length: POOL_THREADS }, (_, i) => path.join(scratch, `pool-${dialect}-${i}`));
    for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
    const busy = fifos.map((fifo) => fs.promises.open(fifo, 'r'));
    // Freed by a writer to each FIFO (a process of its own: opening one here would wait on the pool
    // too): once answered, or after three idle timeouts, so an answer that waits on the pool comes too late.
    let freeing: Promise<unknown> | undefined;
    const free = () => (freeing ??= promisify(execFile)('sh', ['-c', 'for f in "$@"; do : > "$f"; done', 'sh', ...fifos]));
    const deadline = setTimeout(() => void free(), 3 * IDLE_SECONDS * 1000);
    const answer = await stall(server.api, token, project.id);
    clearTimeout(deadline);
    await free();
    for (const opened of await Promise.all(busy)) await opened.close();
    expect(answer.status).toBe(408);
    expect(answer.elapsedMs).toBeLessThan(IDLE_SECONDS * 1000 + 2500);
    // Once the pool is free the upload's own abort has removed its temp file and pending record.
    for (let i = 0; i < 100 && (await server.services.handle.db.selectFrom('pending_uploads').selectAll().execute()).length > 0; i += 1) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
  }, 120_000);
});
