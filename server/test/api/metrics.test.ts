// Metrics as Prometheus reads them (issue 16): who may scrape, and that what happened shows up in
// the right series: uploads by path, jobs by outcome, the queue, storage failures, sign-ins, and
// requests by route pattern. A worker process answers on METRICS_PORT.
import fs from 'node:fs';
import path from 'node:path';
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobRunner } from '../../src/services.js';
import { agoIso } from '../clock.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startWorkerProcess, type ServerProcess } from '../processes.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, encodeMetadata, headUpload, uploadUrl } from '../tus.js';
import { dicomFixture, download, openUploadRequest, upload } from '../uploads.js';

const METRICS_TOKEN = 'm3trics-scraper-token-0123456789abcdef0123456789';
const WRONG = 'Wr0ng!Guess';
const CT = dicomFixture('s01_CT_small.dcm');
const MR = dicomFixture('s10_MR_small_implicit.dcm');

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a text exposition (format 0.0.4), comments skipped. */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** A multipart upload whose client goes away after the first 256 KB of a 4 MB file. */
async function cutUpload(api: string, token: string, projectId: number): Promise<void> {
  const boundary = 'metrics-cut';
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="studypetitionid"\r\n\r\n${projectId}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.dcm"\r\nContent-Type: application/dicom\r\n\r\n`;
  const req = openUploadRequest(api, token, boundary, head.length + 4 * 1024 * 1024);
  req.on('error', () => undefined);
  req.write(head);
  req.write(Buffer.concat([CT, Buffer.alloc(256 * 1024)]).subarray(0, 256 * 1024));
  await new Promise((r) => setTimeout(r, 300));
  req.destroy();
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.each(dialects())('metrics on %s', (dialect) => {
  let server: TestServer;
  let admin: string;
  let userToken: string;
  let projectId: number;
  let addressCounter = 0;

  beforeAll(async () => {
    server = await startTestServer(dialect, { METRICS_TOKEN, TRUST_PROXY: 'true', LOGIN_MAX_FAILURES_PER_PAIR: '2' });
    const company = await makeCompany(server.services);
    const sysAdmin = await makeUser(server.services, { company, role: ROLES.SysAdmin });
    const user = await makeUser(server.services, { company });
    admin = await login(server.api, sysAdmin.username, PASSWORD);
    userToken = await login(server.api, user.username, PASSWORD);
    projectId = (await makeProject(server.services, company)).id;
  });
  afterAll(() => server.close());

  const scrape = async (token = METRICS_TOKEN) => {
    const answer = await call<string>(`${server.api}/metrics`, { token });
    expect(answer.status).toBe(200);
    return parseExposition(answer.body);
  };
  /** The value of one series (0 when absent, as Prometheus reads an unset counter). */
  const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
    samples
      .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((sum, s) => sum + s.value, 0);

  it('answers 401 without a token, or with one that is neither a session nor the METRICS_TOKEN', async () => {
    const none = await call(`${server.api}/metrics`);
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ message: 'Authentication required' });
    const wrong = await call(`${server.api}/metrics`, { token: `${METRICS_TOKEN}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toEqual(expect.any(String));
  });

  it.each([
    ['a User', ROLES.User],
    ['a CompanyAdmin', ROLES.CompanyAdmin],
    ['a SysUser', ROLES.SysUser],
  ])('answers 403 to %s', async (_name, role) => {
    const person = await makeUser(server.services, { role });
    const answer = await call(`${server.api}/metrics`, { token: await login(server.api, person.username, PASSWORD) });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ message: 'You do not have permission to perform this action' });
  });

  it('answers the Prometheus text format to a SysAdmin and to the METRICS_TOKEN', async () => {
    for (const token of [admin, METRICS_TOKEN]) {
      const answer = await call<string>(`${server.api}/metrics`, { token });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(answer.body).toContain('# TYPE portal_http_request_duration_seconds histogram');
      expect(answer.body).toContain('# TYPE process_cpu_user_seconds_total counter');
      expect(answer.body).toContain('portal_uploads_total{path="multipart"}');
    }
  });

  it('is described in the OpenAPI document as text behind the bearer token', async () => {
    const doc = (await call(`${server.api}/openapi.json`)).body;
    const operation = doc.paths['/metrics'].get;
    expect(operation.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(operation.responses['200'].content)).toEqual(['text/plain']);
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '401', '403']);
  });

  it('counts a multipart and a tus upload by path, with their bytes', async () => {
    const before = await scrape();
    expect((await upload(server.api, userToken, { name: 'ct.dcm', data: CT }, projectId)).status).toBe(201);
    const created = await createUpload(server.api, userToken, { name: 'mr.dcm', projectId, size: MR.length, body: MR });
    expect(created.status).toBe(201);
    expect(created.headers.get('portal-file-id')).toMatch(/^\d+$/);

    const after = await scrape();
    const grew = (name: string, labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
    expect(grew('portal_uploads_total', { path: 'multipart' })).toBe(1);
    expect(grew('portal_upload_bytes_total', { path: 'multipart' })).toBe(CT.length);
    expect(grew('portal_uploads_total', { path: 'tus' })).toBe(1);
    expect(grew('portal_upload_bytes_total', { path: 'tus' })).toBe(MR.length);
    expect(grew('portal_uploads_total', { path: 'delivery' })).toBe(0);
  });

  it('counts a completed delivery once under its own path with all its bytes, not its files under tus', async () => {
    const before = await scrape();
    const delivery = await call(`${server.api}/deliveries`, { token: userToken, json: { studypetitionid: projectId, name: 'CD export' } });
    expect(delivery.status).toBe(201);
    const id: number = delivery.body.data[0].id;
    for (const [relativePath, data] of [['SERIES1/IM1', CT], ['SERIES2/IM1', MR]] as const) {
      const metadata = encodeMetadata({ filename: 'IM1', delivery: String(id), relativePath });
      expect((await createUpload(server.api, userToken, { size: data.length, body: data, metadata })).status).toBe(201);
    }
    expect((await call(`${server.api}/deliveries/${id}/complete`, { method: 'POST', token: userToken })).status).toBe(200);

    const after = await scrape();
    const grew = (name: string, labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
    expect(grew('portal_uploads_total', { path: 'delivery' })).toBe(1);
    expect(grew('portal_upload_bytes_total', { path: 'delivery' })).toBe(CT.length + MR.length);
    expect(grew('portal_uploads_total', { path: 'tus' })).toBe(0);
  });

  it("shows a queued job in the queue's depth and age, then its outcome and duration once processed", async () => {
    expect((await upload(server.api, userToken, { name: 'queued.dcm', data: CT }, projectId)).status).toBe(201);
    const queued = await server.services.handle.db.selectFrom('jobs').select(['id', 'name']).where('status', '=', 'queued').execute();
    const ofKind = (kind: string) => queued.filter((job) => job.name === kind).length;
    expect(queued.length).toBeGreaterThanOrEqual(1);
    // Waiting for over a second, as far as the queue can tell.
    await server.services.handle.db.updateTable('jobs').set({ run_at: agoIso(1100) }).where('status', '=', 'queued').execute();
    const waiting = await scrape();
    expect(value(waiting, 'portal_job_queue_depth', { state: 'waiting' })).toBe(queued.length);
    expect(value(waiting, 'portal_job_queue_depth', { state: 'running' })).toBe(0);
    expect(value(waiting, 'portal_job_queue_oldest_waiting_seconds')).toBeGreaterThanOrEqual(1);
    // Every kind (an upload's and a delivery's jobs are both queued by now).
    const doneBefore = value(waiting, 'portal_jobs_total', { outcome: 'done' });

    const runner = await createJobRunner(server.services, server.config, server.app.log);
    runner.start();
    try {
      await until('every job done', async () => {
        const left = await server.services.handle.db.selectFrom('jobs').select('id').where('status', 'in', ['queued', 'running']).execute();
        return left.length === 0 ? true : undefined;
      });
    } finally {
      await runner.stop();
    }
    const processed = await scrape();
    // Each processed file queued its thumbnails' job, which this runner ran too.
    const thumbnails = (await server.services.handle.db.selectFrom('jobs').select('id').where('name', '=', 'render-thumbnails').where('status', '=', 'done').execute()).length;
    expect(value(processed, 'portal_jobs_total', { outcome: 'done' }) - doneBefore).toBe(queued.length + thumbnails);
    expect(value(processed, 'portal_job_duration_seconds_count', { outcome: 'done' })).toBe(queued.length + thumbnails);
    for (const kind of ['process-upload', 'process-delivery']) {
      expect(value(processed, 'portal_job_duration_seconds_count', { kind, outcome: 'done' })).toBe(ofKind(kind));
    }
    expect(value(processed, 'portal_job_duration_seconds_sum', { outcome: 'done' })).toBeGreaterThan(0);
    expect(value(processed, 'portal_job_queue_depth', { state: 'waiting' })).toBe(0);
    expect(value(processed, 'portal_job_queue_oldest_waiting_seconds')).toBe(0);
  });

  it('counts wrong passwords as sign-in failures and a throttled attempt as a throttle', async () => {
    const person = await makeUser(server.services);
    addressCounter += 1;
    const from = { 'x-forwarded-for': `198.51.100.${addressCounter}` };
    const before = await scrape();
    const attempt = () => call(`${server.api}/login`, { json: { username: person.username, password: WRONG }, headers: from });
    expect((await attempt()).status).toBe(401);
    expect((await attempt()).status).toBe(401);
    expect((await attempt()).status).toBe(429);
    const after = await scrape();
    expect(value(after, 'portal_login_failures_total') - value(before, 'portal_login_failures_total')).toBe(2);
    const throttled = (samples: Sample[]) => value(samples, 'portal_login_throttled_total', { call: 'login' });
    expect(throttled(after) - throttled(before)).toBe(1);
  });

  it('labels requests with the route pattern, never with the ids or upload ids in the URL', async () => {
    const answer = await call(`${server.api}/study-petitions/${projectId}`, { token: userToken });
    expect(answer.status).toBe(200);
    const created = await createUpload(server.api, userToken, { name: 'later.dcm', projectId, size: CT.length });
    const url = uploadUrl(server.api, created);
    const uploadId = url.split('/').pop()!;
    expect((await headUpload(url, userToken)).status).toBe(200);
    expect((await call(`${server.api}/no-such-call/424242`, { token: userToken })).status).toBe(404);

    const samples = await scrape();
    const routes = new Set(samples.filter((s) => s.name === 'portal_http_requests_total').map((s) => s.labels.route!));
    expect(routes).toContain('/api/v1/study-petitions/:id');
    expect(routes).toContain('/api/v1/uploads/:id');
    expect(routes).toContain('unmatched');
    expect(value(samples, 'portal_http_requests_total', { method: 'GET', route: '/api/v1/study-petitions/:id', status: '200' })).toBe(1);
    expect(value(samples, 'portal_http_request_duration_seconds_count', { method: 'HEAD', route: '/api/v1/uploads/:id', status: '200' })).toBe(1);
    for (const route of routes) {
      expect(route).not.toContain(uploadId);
      expect(route).not.toMatch(/\/\d+(\/|$)/);
    }
  });

  it('counts a storage operation that failed, by operation', async () => {
    // The store's folder for writes in progress, replaced by a plain file: every write fails.
    const temp = path.join(server.database.dataDir, 'objects', '.tmp');
    fs.rmSync(temp, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(temp), { recursive: true });
    fs.writeFileSync(temp, 'not a folder');
    const before = await scrape();
    try {
      const refused = await upload(server.api, userToken, { name: 'broken.dcm', data: CT }, projectId);
      expect(refused.status).toBe(500);
    } finally {
      fs.rmSync(temp, { force: true });
    }
    // A file row whose bytes vanished: its download finds no object.
    const stored = await upload(server.api, userToken, { name: 'vanishing.dcm', data: CT }, projectId);
    expect(stored.status).toBe(201);
    const row = await server.services.repos.files.find(stored.body.data[0].id, 'all');
    await server.services.storage.delete(row!.storage_key);
    expect((await download(server.api, userToken, row!.id)).status).toBe(500);
    // Deleted, so that its job (which would find no bytes either) is cancelled.
    expect((await call(`${server.api}/study-petitions-files-delete/${row!.id}`, { method: 'PUT', token: userToken })).status).toBe(200);

    // What clients cause is not the store's failure: content that is not what its name says, a
    // range beyond the end, an upload cut off midway.
    expect((await upload(server.api, userToken, { name: 'fake.dcm', data: Buffer.alloc(4096, 'not DICOM ') }, projectId)).status).toBe(415);
    const whole = await upload(server.api, userToken, { name: 'whole.dcm', data: CT }, projectId);
    expect((await download(server.api, userToken, whole.body.data[0].id, { range: `bytes=${CT.length + 10}-` })).status).toBe(416);
    await cutUpload(server.api, userToken, projectId);
    await until('the cut upload was cleaned up', async () => {
      const pending = await server.services.handle.db.selectFrom('pending_uploads').select('id').execute();
      return pending.length === 0 ? true : undefined;
    });

    const after = await scrape();
    const grew = (labels: Record<string, string>) => value(after, 'portal_storage_errors_total', labels) - value(before, 'portal_storage_errors_total', labels);
    expect(grew({ operation: 'put', error: 'failed' })).toBe(1);
    expect(grew({ operation: 'get', error: 'not_found' })).toBe(1);
    expect(grew({})).toBe(2);
  });

  describe('a worker process with METRICS_PORT', () => {
    let worker: ServerProcess;
    let metricsUrl: string;
    beforeAll(async () => {
      worker = await startWorkerProcess({
        DATA_DIR: server.database.dataDir,
        DATABASE_URL: server.database.databaseUrl,
        HOST: '127.0.0.1',
        METRICS_PORT: '0',
        METRICS_TOKEN,
      });
      metricsUrl = /"url":"(http:\/\/127\.0\.0\.1:\d+\/metrics)"/.exec(worker.logs())![1]!;
    });
    afterAll(async () => {
      worker.child.kill('SIGTERM');
      await worker.waitForExit();
    });

    it('refuses a scrape without the METRICS_TOKEN, even a SysAdmin session', async () => {
      expect((await call(metricsUrl)).status).toBe(401);
      expect((await call(metricsUrl, { token: `${METRICS_TOKEN}x` })).status).toBe(401);
      const withSession = await call(metricsUrl, { token: admin });
      expect(withSession.status).toBe(401);
      expect(withSession.body).toEqual({ message: expect.stringContaining('METRICS_TOKEN') });
    });

    it('answers the jobs it ran to the METRICS_TOKEN', async () => {
      const id = (await upload(server.api, userToken, { name: 'by-worker.dcm', data: MR }, projectId)).body.data[0].id;
      // Its processing, then its thumbnails' job (queued by the processing job as it ends), both done:
      // the processing job is counted as its handler returns, long before the thumbnails are drawn.
      await until('the worker processed the upload and its thumbnails', async () => {
        const jobs = await server.services.repos.jobs.findBySubject(`files/${id}`);
        return jobs.length === 2 && jobs.every((job) => job.status === 'done') ? true : undefined;
      });
      const answer = await call<string>(metricsUrl, { token: METRICS_TOKEN });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const samples = parseExposition(answer.body);
      // Every job this worker finished, and only those (the API process ran the others).
      const workerId = /"workerId":"([^"]+)"/.exec(worker.logs())![1]!;
      const mine = await server.services.handle.db.selectFrom('jobs').select('id').where('locked_by', '=', workerId).where('status', '=', 'done').where('name', '=', 'process-upload').execute();
      expect(mine.length).toBeGreaterThanOrEqual(1);
      expect(value(samples, 'portal_jobs_total', { kind: 'process-upload', outcome: 'done' })).toBe(mine.length);
      expect(value(samples, 'portal_job_duration_seconds_count', { kind: 'process-upload', outcome: 'done' })).toBe(mine.length);
      expect(value(samples, 'portal_job_queue_depth', { state: 'waiting' })).toBe(0);
      // The worker serves no API: its port answers metrics and nothing else.
      expect((await call(metricsUrl.replace(/\/metrics$/, '/api/v1/login'), { json: {} })).status).toBe(404);
    });
  });
});
