// Jobs are rows: any process that can reach the database can claim one. On PostgreSQL a claim
// skips rows another worker holds (FOR UPDATE SKIP LOCKED); SQLite serialises writers anyway.
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Db, Dialect } from '../db/database.js';
import { nowIso } from '../db/database.js';
import { PreparedQueries } from '../db/prepared-queries.js';
import type { Database, JobRow, JobStatus } from '../db/schema.js';
import { JobCancelled, type JobType } from './job-kind.js';

export interface EnqueueOptions {
  /** For a caller queueing one with every upload: the insert built once (db/prepared-queries.ts). */
  prepared?: PreparedQueries;
  /**
   * The job is queued already claimed by this worker (its first attempt running, under a lease),
   * for a lane of it reserved to run it (JobRunner.reserve): no claim follows.
   */
  claimedBy?: { workerId: string; leaseMs: number };
}

/**
 * Queues a job after checking its payload against the kind's schema; takes a transaction too, so
 * the job commits with whatever it is for. Answers the row when it was queued claimed.
 */
export async function enqueueJob<P>(db: Kysely<Database>, type: JobType<P>, payload: P, opts: EnqueueOptions = {}): Promise<JobRow | undefined> {
  const checked = type.payload.parse(payload);
  const now = new Date();
  const at = nowIso(now);
  const { prepared, claimedBy } = opts;
  const claim = claimedBy
    ? { status: 'running' as const, attempts: 1, locked_by: claimedBy.workerId, lease_until: nowIso(new Date(now.getTime() + claimedBy.leaseMs)), started_at: at }
    : { status: 'queued' as const, attempts: 0, locked_by: null, lease_until: null, started_at: null };
  const row = { name: type.name, payload: JSON.stringify(checked), subject: type.subject(checked), fair_key: type.fairKey(checked), run_at: at, created_at: at, updated_at: at, ...claim };
  if (!prepared) {
    const [inserted] = await db.insertInto('jobs').values(row).returningAll().execute();
    return claimedBy ? inserted : undefined;
  }
  const columns = Object.keys(row) as (keyof typeof row)[];
  const [inserted] = await prepared.rows<JobRow>(
    `enqueueJob:${columns.join(',')}`,
    columns.map((column) => row[column]),
    (v) => db.insertInto('jobs').values(Object.fromEntries(columns.map((column, i) => [column, v[i]])) as unknown as typeof row).returningAll(),
    db,
  );
  return claimedBy ? inserted : undefined;
}

export interface QueueDepth {
  waiting: number;
  delayed: number;
  running: number;
  /** ISO time at which the job waiting longest became due. */
  oldestDueAt: string | null;
}

/** Subjects per statement, far below either database's parameter limit. */
const CANCEL_BATCH = 500;

export class JobsRepository {
  readonly #prepared: PreparedQueries;

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {
    this.#prepared = new PreparedQueries(db);
  }

  /**
   * Takes a job that is due, or one whose worker stopped renewing its lease, taking turns between
   * groups (fair_key): only each group's oldest due job competes; the group with the fewest jobs
   * running goes first, then the one whose last job started longest ago (never: first), then the
   * oldest job. So a company with a hundred uploads queued delays another's next one by at most
   * one job, however many slots there are.
   */
  async claim(workerId: string, leaseMs: number, name: string): Promise<JobRow | undefined> {
    // Built once per kind and worker (PreparedQueries): only the times change between claims.
    const now = new Date();
    const rows = await this.#prepared.rows(`claim ${workerId} ${name}`, [nowIso(now), nowIso(new Date(now.getTime() + leaseMs))], ([nowText, leaseUntil]) =>
      this.#claimQuery(workerId, name, nowText!, leaseUntil!),
    );
    return rows[0];
  }

  #claimQuery(workerId: string, name: string, nowText: string, leaseUntil: string) {
    // Everything but the two times is written into the SQL as a literal (the kind's name is ours,
    // never a client's): SQLite compiled this statement anew at every run when the name or the
    // LIMITs were bound values, about 0.15 ms of CPU per claim, two claims per upload.
    const kind = sql.lit(name);
    const one = sql.lit(1);
    // Due: queued and its time has come, or running under a lease nobody renewed.
    const due = (t: 'j' | 'o') =>
      sql<SqlBool>`((${sql.ref(`${t}.status`)} = 'queued' AND ${sql.ref(`${t}.run_at`)} <= ${nowText})
        OR (${sql.ref(`${t}.status`)} = 'running' AND ${sql.ref(`${t}.lease_until`)} < ${nowText}))`;
    let next = this.db
      .selectFrom('jobs as j')
      .select('j.id')
      .where('j.name', '=', kind)
      // Implied by due(), spelled out so the search takes jobs_due_idx past the finished ones.
      .where('j.status', 'in', [sql.lit<JobStatus>('queued'), sql.lit<JobStatus>('running')])
      .where(due('j'))
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('jobs as o')
              .select('o.id')
              .where('o.name', '=', kind)
              .whereRef('o.fair_key', '=', 'j.fair_key')
              .whereRef('o.id', '<', 'j.id')
              .where(due('o')),
          ),
        ),
      )
      .orderBy((eb) =>
        eb
          .selectFrom('jobs as r')
          .select((inner) => inner.fn.countAll().as('n'))
          .where('r.name', '=', kind)
          .whereRef('r.fair_key', '=', 'j.fair_key')
          .where('r.status', '=', sql.lit<JobStatus>('running'))
          .where('r.lease_until', '>=', nowText),
      )
      .orderBy((eb) =>
        eb.fn.coalesce(
          // The latest start, as max() would answer it; max() read every job the group ever had
          // (SQLite does not stop at the index's end), this reads one index entry.
          eb
            .selectFrom('jobs as s')
            .select('s.started_at')
            .where('s.name', '=', kind)
            .whereRef('s.fair_key', '=', 'j.fair_key')
            .where('s.started_at', 'is not', null)
            .orderBy('s.started_at', 'desc')
            .limit(one),
          sql.lit(''),
        ),
      )
      .orderBy('j.id')
      .limit(one);
    if (this.dialect === 'postgres') next = next.forUpdate().skipLocked();
    return this.db
      .updateTable('jobs')
      .set((eb) => ({
        status: 'running',
        locked_by: workerId,
        lease_until: leaseUntil,
        started_at: nowText,
        attempts: eb('attempts', '+', 1),
        updated_at: nowText,
      }))
      .where('id', '=', next)
      .returningAll();
  }

  /** Extends the lease; false when the job is no longer this worker's (cancelled or taken over). */
  async renew(id: number, workerId: string, leaseMs: number): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set({ lease_until: nowIso(new Date(Date.now() + leaseMs)) })
      .where('id', '=', id)
      .where('locked_by', '=', workerId)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Ends a running job; one cancelled meanwhile or taken over by another worker is left as it is. */
  async finish(id: number, workerId: string, status: 'done' | 'failed' | 'cancelled', error: string | null = null): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set({ status, last_error: error, lease_until: null, updated_at: nowIso() })
      .where('id', '=', id)
      .where('locked_by', '=', workerId)
      .where('status', '=', 'running')
      .execute();
  }

  /**
   * Ends a running job as done in one transaction with `work` (a job's last writes): a crash
   * leaves either both or neither, and the job costs one write transaction less. The job is ended
   * first, so that one cancelled meanwhile or taken over by another worker is found before `work`
   * runs: then nothing is written and JobCancelled is thrown.
   */
  async finishWith(id: number, workerId: string, work: (trx: Db) => Promise<void>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const ended = await this.#prepared.run(
        'finishWith',
        [nowIso(), id, workerId],
        ([at, jobId, worker]) =>
          this.db
            .updateTable('jobs')
            .set({ status: 'done', last_error: null, lease_until: null, updated_at: at! })
            .where('id', '=', jobId as unknown as number)
            .where('locked_by', '=', worker!)
            .where('status', '=', sql.lit<JobStatus>('running')),
        trx,
      );
      if (ended !== 1) throw new JobCancelled('the job was cancelled or taken over');
      await work(trx);
    });
  }

  async retryLater(id: number, workerId: string, delayMs: number, error: string): Promise<void> {
    const now = Date.now();
    await this.db
      .updateTable('jobs')
      .set({ status: 'queued', run_at: nowIso(new Date(now + delayMs)), last_error: error, lease_until: null, locked_by: null, updated_at: nowIso(new Date(now)) })
      .where('id', '=', id)
      .where('locked_by', '=', workerId)
      .where('status', '=', 'running')
      .execute();
  }

  /** Cancels the queued and running jobs about these subjects; a running one notices at its next lease renewal. */
  async cancel(subjects: readonly string[]): Promise<void> {
    for (let at = 0; at < subjects.length; at += CANCEL_BATCH) {
      await this.db
        .updateTable('jobs')
        .set({ status: 'cancelled', updated_at: nowIso() })
        .where('subject', 'in', subjects.slice(at, at + CANCEL_BATCH))
        .where('status', 'in', ['queued', 'running'])
        .execute();
    }
  }

  /** Jobs some worker is running under a lease that has not run out. */
  async liveIds(): Promise<number[]> {
    const rows = await this.db
      .selectFrom('jobs')
      .select('id')
      .where('status', '=', 'running')
      .where('lease_until', '>=', nowIso())
      .execute();
    return rows.map((r) => r.id);
  }

  /** Names of the jobs still to run, so start-up can refuse kinds it has no definition for. */
  async pendingNames(): Promise<string[]> {
    const rows = await this.db.selectFrom('jobs').select('name').distinct().where('status', 'in', ['queued', 'running']).execute();
    return rows.map((r) => r.name);
  }

  /** At start-up of the only worker (SQLite), whatever was running died with the last process. */
  async requeueRunning(): Promise<number> {
    const result = await this.db
      .updateTable('jobs')
      .set({ status: 'queued', locked_by: null, lease_until: null, updated_at: nowIso() })
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * The queue as a monitor sees it: jobs due and waiting for a worker, jobs queued for later (a
   * retry's backoff), jobs running, each counted up to `cap` so that a huge backlog costs no more
   * than `cap` index entries; and when the longest-waiting due job became due (null: none waits).
   */
  async depth(cap: number): Promise<QueueDepth> {
    const now = nowIso();
    const upTo = async (status: 'queued' | 'running', due?: '<=' | '>') => {
      let capped = this.db.selectFrom('jobs').select('id').where('status', '=', status);
      if (due) capped = capped.where('run_at', due, now);
      const row = await this.db
        .selectFrom(capped.limit(cap).as('capped'))
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    };
    const [waiting, delayed, running, oldest] = await Promise.all([
      upTo('queued', '<='),
      upTo('queued', '>'),
      upTo('running'),
      this.db.selectFrom('jobs').select('run_at').where('status', '=', 'queued').where('run_at', '<=', now).orderBy('run_at').limit(1).executeTakeFirst(),
    ]);
    return { waiting, delayed, running, oldestDueAt: oldest?.run_at ?? null };
  }

  findBySubject(subject: string): Promise<JobRow[]> {
    return this.db.selectFrom('jobs').selectAll().where('subject', '=', subject).orderBy('id').execute();
  }
}
