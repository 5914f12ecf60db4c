// Jobs are rows: any process that can reach the database can claim one. On PostgreSQL a claim
// skips rows another worker holds (FOR UPDATE SKIP LOCKED); SQLite serialises writers anyway.
import type { Kysely } from 'kysely';
import type { Db, Dialect } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { Database, JobRow } from '../db/schema.js';
import type { JobType } from './job-kind.js';

/**
 * Queues a job after checking its payload against the kind's schema; takes a transaction too, so
 * the job commits with whatever it is for.
 */
export async function enqueueJob<P>(db: Kysely<Database>, type: JobType<P>, payload: P): Promise<void> {
  const checked = type.payload.parse(payload);
  const now = nowIso();
  await db
    .insertInto('jobs')
    .values({
      name: type.name,
      payload: JSON.stringify(checked),
      subject: type.subject(checked),
      status: 'queued',
      attempts: 0,
      run_at: now,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/** Subjects per statement, far below either database's parameter limit. */
const CANCEL_BATCH = 500;

export class JobsRepository {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /** Takes the oldest job that is due, or one whose worker stopped renewing its lease. */
  async claim(workerId: string, leaseMs: number, name: string): Promise<JobRow | undefined> {
    const now = new Date();
    const nowText = nowIso(now);
    let next = this.db
      .selectFrom('jobs')
      .select('id')
      .where('name', '=', name)
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', nowText)]),
          eb.and([eb('status', '=', 'running'), eb('lease_until', '<', nowText)]),
        ]),
      )
      .orderBy('id')
      .limit(1);
    if (this.dialect === 'postgres') next = next.forUpdate().skipLocked();
    return this.db
      .updateTable('jobs')
      .set((eb) => ({
        status: 'running',
        locked_by: workerId,
        lease_until: nowIso(new Date(now.getTime() + leaseMs)),
        attempts: eb('attempts', '+', 1),
        updated_at: nowText,
      }))
      .where('id', '=', next)
      .returningAll()
      .executeTakeFirst();
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

  findBySubject(subject: string): Promise<JobRow[]> {
    return this.db.selectFrom('jobs').selectAll().where('subject', '=', subject).orderBy('id').execute();
  }
}
