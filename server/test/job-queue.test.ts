import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../src/config/config.js';
import { openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { migrateTo, migrateToLatest } from '../src/db/migrate.js';
import { PROCESS_UPLOAD, uploadSubject } from '../src/files/file-jobs.js';
import { createLogger } from '../src/http/logger.js';
import { defineJobKind, enqueueJob, JobRunner, jobType, JobsRepository, UnknownJobKind } from '../src/jobs/index.js';
import { createJobRunner, createServices } from '../src/services.js';
import { createStorage } from '../src/storage/create-storage.js';
import { createTestDatabase, dialects, type TestDatabase } from './databases.js';

/** Counts the claim queries a runner makes. */
class CountingJobs extends JobsRepository {
  claims = 0;
  override claim(workerId: string, leaseMs: number, name: string) {
    this.claims += 1;
    return super.claim(workerId, leaseMs, name);
  }
}

describe.each(dialects())('the job queue on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;

  /** `migrated`: a copy of the latest schema, for the cases that do not test a migration. */
  async function open(opts: { migrated?: boolean } = {}) {
    database = await createTestDatabase(dialect, opts);
    const config = loadConfig({ DATA_DIR: database.dataDir, LOG_LEVEL: 'silent', ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : {}) });
    handle = openDatabase(config);
    return config;
  }

  afterEach(async () => {
    await handle.close();
    await database.drop();
  });

  it("moves a queued job's file into its payload and subject, and deleting the file still cancels it", async () => {
    await open();
    await migrateTo(handle, '004-entry-offsets');
    const at = '2026-01-01T00:00:00.000Z';
    await sql`INSERT INTO companies (companyname, created_at, updated_at) VALUES ('C', ${at}, ${at})`.execute(handle.db);
    await sql`INSERT INTO projects (company_id, name, valid, status, created_at, updated_at) VALUES (1, 'P', 1, 'open', ${at}, ${at})`.execute(handle.db);
    await sql`INSERT INTO project_files (project_id, company_id, file, filesize, sha256, storage_key, kind, processing_status, created_at, updated_at)
      VALUES (1, 1, 'a.zip', 1, ${'0'.repeat(64)}, 'uploads/a', 'archive', 'pending', ${at}, ${at})`.execute(handle.db);
    await sql`INSERT INTO jobs (name, file_id, status, attempts, run_at, created_at, updated_at) VALUES ('process-upload', 1, 'queued', 1, ${at}, ${at}, ${at})`.execute(handle.db);

    await migrateToLatest(handle);
    const [job] = await handle.db.selectFrom('jobs').selectAll().execute();
    expect(job).toMatchObject({ name: 'process-upload', subject: uploadSubject(1), fair_key: 'companies/1', status: 'queued', attempts: 1 });
    expect(PROCESS_UPLOAD.payload.parse(JSON.parse(job!.payload))).toEqual({ fileId: 1, companyId: 1 });
    const jobs = new JobsRepository(handle.db, handle.dialect);
    await jobs.cancel([uploadSubject(1)]);
    expect((await jobs.findBySubject(uploadSubject(1)))[0]?.status).toBe('cancelled');
  });

  it('takes turns between groups: a group with many jobs queued first delays another by one job at most', async () => {
    await open({ migrated: true });
    const kind = jobType('fair-test', z.object({ group: z.string(), n: z.number() }), () => null, (p) => p.group);
    for (const n of [1, 2, 3, 4]) await enqueueJob(handle.db, kind, { group: 'A', n });
    await enqueueJob(handle.db, kind, { group: 'B', n: 1 });
    await enqueueJob(handle.db, kind, { group: 'C', n: 1 });
    const jobs = new JobsRepository(handle.db, handle.dialect);
    const claimed = async () => {
      const job = await jobs.claim('w', 60_000, kind.name);
      const { group, n } = JSON.parse(job!.payload) as { group: string; n: number };
      return { id: job!.id, label: `${group}${n}` };
    };
    // Two slots: the group with the fewest jobs running goes first, never-served groups before others.
    const first = await claimed();
    const second = await claimed();
    expect([first.label, second.label]).toEqual(['A1', 'B1']);
    // One slot frees up: C has nothing running and was never served.
    await jobs.finish(first.id, 'w', 'done');
    const third = await claimed();
    expect(third.label).toBe('C1');
    // B and C are done: A is the only group waiting, and its jobs come in order.
    await jobs.finish(second.id, 'w', 'done');
    await jobs.finish(third.id, 'w', 'done');
    expect((await claimed()).label).toBe('A2');
    expect((await claimed()).label).toBe('A3');
    expect(await jobs.claim('w', 60_000, 'no-such-kind')).toBeUndefined();
  });

  it("ends a job in one transaction with its last writes, and writes none of them for a job cancelled meanwhile", async () => {
    await open({ migrated: true });
    const kind = jobType('complete-test', z.object({ n: z.number() }), (p) => `things/${p.n}`);
    await enqueueJob(handle.db, kind, { n: 1 });
    await enqueueJob(handle.db, kind, { n: 2 });
    const jobs = new JobsRepository(handle.db, handle.dialect);
    const first = (await jobs.claim('w', 60_000, kind.name))!;
    const second = (await jobs.claim('w', 60_000, kind.name))!;
    // What a job's last write stands for (an upload's outcome): a row only a finished job leaves.
    const note = async (trx: typeof handle.db, id: number) => {
      await trx.insertInto('pending_uploads').values({ storage_key: `note/${id}`, created_at: 'x', lease_until: 'x' }).execute();
    };
    const notes = async () => (await handle.db.selectFrom('pending_uploads').select('storage_key').orderBy('storage_key').execute()).map((r) => r.storage_key);

    await jobs.finishWith(first.id, 'w', (trx) => note(trx, first.id));
    expect((await jobs.findBySubject('things/1'))[0]?.status).toBe('done');
    // The owner deleted the thing while its job ran: the job's end finds it cancelled and writes nothing.
    await jobs.cancel(['things/2']);
    await expect(jobs.finishWith(second.id, 'w', (trx) => note(trx, second.id))).rejects.toThrow(/cancelled or taken over/);
    expect((await jobs.findBySubject('things/2'))[0]?.status).toBe('cancelled');
    // A failure in the last writes leaves the job running, for a retry: neither is kept.
    await enqueueJob(handle.db, kind, { n: 3 });
    const third = (await jobs.claim('w', 60_000, kind.name))!;
    await expect(
      jobs.finishWith(third.id, 'w', async (trx) => {
        await note(trx, third.id);
        throw new Error('the disk is full');
      }),
    ).rejects.toThrow('the disk is full');
    expect((await jobs.findBySubject('things/3'))[0]?.status).toBe('running');
    expect(await notes()).toEqual([`note/${first.id}`]);
  });

  it('with one slot, a group served a moment ago waits for one that was not', async () => {
    await open({ migrated: true });
    const kind = jobType('fair-test', z.object({ group: z.string(), n: z.number() }), () => null, (p) => p.group);
    for (const n of [1, 2, 3]) await enqueueJob(handle.db, kind, { group: 'A', n });
    await enqueueJob(handle.db, kind, { group: 'B', n: 1 });
    await enqueueJob(handle.db, kind, { group: 'B', n: 2 });
    const jobs = new JobsRepository(handle.db, handle.dialect);
    const order: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const job = await jobs.claim('w', 60_000, kind.name);
      const { group, n } = JSON.parse(job!.payload) as { group: string; n: number };
      order.push(`${group}${n}`);
      await jobs.finish(job!.id, 'w', 'done');
      // started_at has millisecond resolution: the next claim must start visibly later.
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(order).toEqual(['A1', 'B1', 'A2', 'B2', 'A3']);
  });

  it('runs a job queued already claimed on the idle lane reserved for it, without claiming it; a busy runner reserves none', async () => {
    const config = await open({ migrated: true });
    const kind = jobType('direct-test', z.object({ n: z.number() }), (p) => `direct/${p.n}`);
    const jobs = new CountingJobs(handle.db, handle.dialect);
    const ran: number[] = [];
    let gate: (() => void) | undefined;
    const definition = defineJobKind(kind, {
      handle: async ({ n }) => {
        ran.push(n);
        if (n === 2) await new Promise<void>((resolve) => (gate = resolve));
      },
      onGiveUp: () => Promise.resolve(),
    });
    // One lane, and a poll far away: every claim below is one the runner chose to make.
    const runner = new JobRunner(jobs, [definition], { leaseMs: 60_000, workRoot: `${database.dataDir}/work`, pollMs: 600_000, defaults: { concurrency: 1, maxAttempts: 1, backoffMs: 1 } }, createLogger(config));
    const idleLane = async () => {
      for (;;) {
        const lane = runner.reserve(kind.name);
        if (lane) return lane;
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const settled = async (n: number, status: string) => {
      for (;;) {
        const [row] = await jobs.findBySubject(`direct/${n}`);
        if (row?.status === status) return row;
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    runner.start();
    try {
      const lane = await idleLane();
      expect(jobs.claims).toBe(1);
      const job = await handle.db.transaction().execute((trx) => enqueueJob(trx, kind, { n: 1 }, { claimedBy: { workerId: lane.workerId, leaseMs: lane.leaseMs } }));
      expect(job).toMatchObject({ status: 'running', attempts: 1, locked_by: runner.workerId });
      lane.start(job!);
      expect(await settled(1, 'done')).toMatchObject({ attempts: 1, locked_by: runner.workerId });
      // Run without a claim of its own, and none after it: nothing was queued meanwhile.
      const second = await idleLane();
      expect(jobs.claims).toBe(1);
      second.start((await enqueueJob(handle.db, kind, { n: 2 }, { claimedBy: { workerId: second.workerId, leaseMs: second.leaseMs } }))!);
      await settled(2, 'running');
      while (gate === undefined) await new Promise((r) => setTimeout(r, 10));
      // Its only lane is busy: the next job is queued as any other, and its nudge, finding no idle
      // lane, has the lane claim it after this one (the poll is ten minutes away).
      expect(runner.reserve(kind.name)).toBeUndefined();
      await enqueueJob(handle.db, kind, { n: 3 });
      runner.nudge(kind.name);
      gate();
      await settled(3, 'done');
      // A reservation given back (the caller's transaction failed) leaves the lane claiming as before.
      const released = await idleLane();
      await enqueueJob(handle.db, kind, { n: 4 });
      released.release();
      await settled(4, 'done');
      expect(ran).toEqual([1, 2, 3, 4]);
      // A job handed over as the runner stops goes back to the queue for the next worker.
      const last = await idleLane();
      const stopping = runner.stop();
      last.start((await enqueueJob(handle.db, kind, { n: 5 }, { claimedBy: { workerId: last.workerId, leaseMs: last.leaseMs } }))!);
      await stopping;
      expect((await jobs.findBySubject('direct/5'))[0]).toMatchObject({ status: 'queued', locked_by: null });
      expect(ran).toEqual([1, 2, 3, 4]);
    } finally {
      await runner.stop();
    }
  });

  it('checks a payload when it is queued', async () => {
    await open({ migrated: true });
    await expect(enqueueJob(handle.db, PROCESS_UPLOAD, { fileId: -1, companyId: 1 })).rejects.toThrow(z.ZodError);
    expect(await handle.db.selectFrom('jobs').selectAll().execute()).toEqual([]);
  });

  it('refuses to start beside a job kind it does not know, naming it', async () => {
    const config = await open({ migrated: true });
    await enqueueJob(handle.db, jobType('deliver-files', z.object({ to: z.string() }), () => null), { to: 'x' });
    const services = createServices(handle, config, await createStorage(config));
    const starting = createJobRunner(services, config, createLogger(config));
    await expect(starting).rejects.toThrow(UnknownJobKind);
    await expect(starting).rejects.toThrow(/'deliver-files'/);
  });

  it('fails a claimed job whose payload does not fit its kind, without retrying it', async () => {
    const config = await open({ migrated: true });
    const at = new Date().toISOString();
    await handle.db
      .insertInto('jobs')
      .values({ name: PROCESS_UPLOAD.name, payload: '{"fileId":"one"}', subject: null, status: 'queued', attempts: 0, run_at: at, created_at: at, updated_at: at })
      .execute();
    const runner = await createJobRunner(createServices(handle, config, await createStorage(config)), config, createLogger(config));
    runner.start();
    try {
      for (let i = 0; i < 100; i += 1) {
        const [row] = await handle.db.selectFrom('jobs').selectAll().execute();
        if (row?.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await runner.stop();
    }
    const [row] = await handle.db.selectFrom('jobs').selectAll().execute();
    expect(row).toMatchObject({ status: 'failed', attempts: 1 });
    expect(row!.last_error).toMatch(/^invalid payload/);
  });
});
