import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { uploadSubject } from '../src/files/file-jobs.js';
import { passDeadlines } from './clock.js';
import { createTestDatabase, dialects, type TestDatabase } from './databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from './factories.js';
import { call, login } from './http.js';
import { startServerProcess, startWorkerProcess, type ServerProcess } from './processes.js';
import { startTestServer } from './server.js';
import { createJobRunner } from '../src/services.js';
import { dicomFixture, makeArchive, sha256, upload } from './uploads.js';

const ADMIN = { ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'J0bs!Resume-pw' };
// Enough entries that the job is still far from done when the test sees its first batch recorded.
const ENTRIES = 2000;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.each(dialects())('durable jobs on %s', (dialect) => {
  let scratch: string;
  beforeAll(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-jobs-'));
  });
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('several worker processes share the queue and run every job exactly once', async () => {
    const server = await startTestServer(dialect);
    const workers: ServerProcess[] = [];
    try {
      const company = await makeCompany(server.services);
      const user = await makeUser(server.services, { company });
      const token = await login(server.api, user.username, PASSWORD);
      const project = await makeProject(server.services, company);
      // Zips, not single files: each job lasts long enough that every runner gets some.
      const members = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}.dcm`, dicomFixture('s01_CT_small.dcm')]));
      const zip = makeArchive(scratch, members, 'bsdtar --format zip -cf out.zip *.dcm', 'out.zip');
      const ids: number[] = [];
      for (let i = 0; i < 12; i += 1) {
        const answer = await upload(server.api, token, { name: `w${i}.zip`, data: zip }, project.id);
        ids.push(answer.body.data[0].id);
      }
      const env = { DATA_DIR: server.database.dataDir, DATABASE_URL: server.database.databaseUrl };
      workers.push(...(await Promise.all([startWorkerProcess(env), startWorkerProcess(env)])));
      const runner = await createJobRunner(server.services, server.config, server.app.log);
      runner.start();
      try {
        await until('every job done', async () => {
          const jobs = await Promise.all(ids.map((id) => server.services.repos.jobs.findBySubject(uploadSubject(id))));
          return jobs.every(([job]) => job?.status === 'done') ? true : undefined;
        });
      } finally {
        await runner.stop();
      }
      const claimedBy = new Set<string>();
      for (const id of ids) {
        const [job] = await server.services.repos.jobs.findBySubject(uploadSubject(id));
        expect(job?.attempts).toBe(1);
        claimedBy.add(job!.locked_by!);
        expect(await server.services.repos.entries.recordedCount(id)).toBe(12);
      }
      expect(claimedBy.size).toBeGreaterThan(1);
    } finally {
      for (const worker of workers) worker.child.kill('SIGTERM');
      await Promise.all(workers.map((w) => w.waitForExit()));
      await server.close();
    }
  });

  describe('a server killed in the middle of a job', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase(dialect, { migrated: true });
    });
    afterAll(() => database.drop());

    // Deflated entries are written out and stored; stored ones are recorded as ranges of the upload.
    // Resuming does not depend on the database, so each database takes one kind (the suite's time).
    const compression = dialect === 'sqlite' ? 'deflate' : 'store';
    it(`resumes after restart and records every entry exactly once (${compression}d zip)`, async () => {
      const members = Object.fromEntries(
        Array.from({ length: ENTRIES }, (_, i) => [`f${String(i).padStart(4, '0')}.dcm`, dicomFixture('s24_RTIONPLAN_explicitLE_no_meta.dcm')]),
      );
      const zip = makeArchive(scratch, members, `bsdtar --format zip --options zip:compression=${compression} -cf out.zip *.dcm`, 'out.zip');
      const env = { DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, JOB_LEASE_SECONDS: '3', ...ADMIN };
      const first = await startServerProcess(env);
      const api = `${first.url}/api/v1`;
      const token = await login(api, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD);
      const project = (await call(`${api}/study-petitions`, { token, json: { name: 'Resume' } })).body.data[0];
      const id: number = (await upload(api, token, { name: 'many.zip', data: zip }, project.id)).body.data[0].id;

      const handle: DatabaseHandle = openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
      const count = async () => {
        const row = await handle.db
          .selectFrom('file_entries')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('file_id', '=', id)
          .executeTakeFirstOrThrow();
        return Number(row.n);
      };
      try {
        // Killed at the first recorded batch: a faster machine must not finish the job between polls.
        const before = await until('processing under way', async () => ((await count()) > 0 ? count() : undefined), 120_000, 10);
        first.child.kill('SIGKILL');
        await first.waitForExit();
        expect(before).toBeLessThan(ENTRIES);

        // What a killed process leaves in DATA_DIR/work, beside a folder of a job that no longer runs.
        const work = path.join(database.dataDir, 'work');
        fs.mkdirSync(path.join(work, 'job-999999', 'extracted'), { recursive: true });
        fs.writeFileSync(path.join(work, 'job-999999', 'extracted', 'left.dcm'), 'left behind');
        expect(fs.readdirSync(work).length).toBeGreaterThan(compression === 'deflate' ? 1 : 0);

        // The killed server's lease is over, as if JOB_LEASE_SECONDS had passed without a heartbeat.
        await passDeadlines(database, 'jobs', 'lease_until');
        const second = await startServerProcess(env);
        try {
          const file = await until('processing finished', async () => {
            const list = await call(`${second.url}/api/v1/study-petitions-files?study_petition_id=${project.id}`, {
              token: await login(`${second.url}/api/v1`, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD),
            });
            const f = list.body.data[0];
            return f.processing.status === 'ready' || f.processing.status === 'failed' ? f : undefined;
          });
          expect(file.processing.status).toBe('ready');
          expect(file.processing.summary.instances + file.processing.summary.other).toBeGreaterThan(0);
          const rows = await handle.db.selectFrom('file_entries').select(['seq', 'path']).where('file_id', '=', id).orderBy('seq').execute();
          expect(rows).toHaveLength(ENTRIES);
          expect(new Set(rows.map((r) => r.path)).size).toBe(ENTRIES);
          expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: ENTRIES }, (_, i) => i + 1));
          const last = await handle.db.selectFrom('file_entries').select(['id', 'sha256']).where('file_id', '=', id).where('seq', '=', ENTRIES).executeTakeFirstOrThrow();
          const bytes = await fetch(`${second.url}/api/v1/study-petitions-files/${id}/contents/${last.id}/download`, {
            headers: { authorization: `Bearer ${await login(`${second.url}/api/v1`, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD)}` },
          });
          expect(sha256(Buffer.from(await bytes.arrayBuffer()))).toBe(last.sha256);
          // One processing job (its series' thumbnails are a job of their own, after it).
          const jobs = await handle.db.selectFrom('jobs').selectAll().where('subject', '=', uploadSubject(id)).where('name', '=', 'process-upload').execute();
          expect(jobs).toHaveLength(1);
          expect(jobs[0]).toMatchObject({ status: 'done', attempts: 2 });
          // The job's scratch folder goes once the reactions to 'file.processed' (rules, notifications) have run.
          await until('the work area emptied', () => Promise.resolve(fs.readdirSync(work).length === 0 ? true : undefined));
        } finally {
          second.child.kill('SIGTERM');
          await second.waitForExit();
        }
      } finally {
        await handle.close();
      }
    });
  });

  it('removes, while running, the work folder of a job that ended elsewhere, and keeps the folder of a live job', async () => {
    const server = await startTestServer(dialect);
    try {
      const db = server.services.handle.db;
      const now = new Date();
      const job = (status: 'done' | 'running', fileId: number) => ({
        name: 'process-upload',
        payload: JSON.stringify({ fileId, companyId: 1 }),
        subject: uploadSubject(fileId),
        status,
        attempts: 1,
        run_at: now.toISOString(),
        locked_by: status === 'running' ? 'another-worker' : null,
        lease_until: status === 'running' ? new Date(now.getTime() + 3_600_000).toISOString() : null,
        started_at: now.toISOString(),
        last_error: null,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      });
      // A job this process was running when it was killed, which another worker has since
      // finished; and one a worker sharing this DATA_DIR still runs under a live lease.
      const ended = await db.insertInto('jobs').values(job('done', 1)).returning('id').executeTakeFirstOrThrow();
      const live = await db.insertInto('jobs').values(job('running', 2)).returning('id').executeTakeFirstOrThrow();
      const work = path.join(server.database.dataDir, 'work');
      const runner = await createJobRunner(server.services, { ...server.config, processing: { ...server.config.processing, leaseMs: 3000 } }, server.app.log);
      await runner.sweepWorkRoot();
      // Left after the start-up sweep, as by a run killed while the job was still going elsewhere.
      for (const id of [ended.id, live.id]) {
        fs.mkdirSync(path.join(work, `job-${id}`), { recursive: true });
        fs.writeFileSync(path.join(work, `job-${id}`, 'IM0001'), dicomFixture('s01_CT_small.dcm'));
      }
      runner.start();
      try {
        await until('the ended job\'s folder removed', () => Promise.resolve(fs.existsSync(path.join(work, `job-${ended.id}`)) ? undefined : true), 15_000);
      } finally {
        await runner.stop();
      }
      expect(fs.readdirSync(work)).toEqual([`job-${live.id}`]);
    } finally {
      await server.close();
    }
  });
});
