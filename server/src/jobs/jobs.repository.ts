// Jobs are rows: any process that can reach the database can claim one. On PostgreSQL a claim
// skips rows another worker holds (FOR UPDATE SKIP LOCKED); SQLite serialises writers anyway.
import type { Kysely } from 'kysely';
import type { Db, Dialect } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { Database, JobRow } from '../db/schema.js';

/** Queues a job; takes a transaction too, so the job commits with whatever it is for. */
export async function enqueueJob(db: Kysely<Database>, name: string, fileId: number): Promise<void> {
  const now = nowIso();
  await db
    .insertInto('jobs')
    .values({ name, file_id: fileId, status: 'queued', attempts: 0, run_at: now, created_at: now, updated_at: now })
    .execute();
}

export class JobsRepository {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /** Takes the oldest job that is due, or one whose worker stopped renewing its lease. */
  async claim(workerId: string, leaseMs: number): Promise<JobRow | undefined> {
    const now = new Date();
    const nowText = nowIso(now);
    let next = this.db
      .selectFrom('jobs')
      .select('id')
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

  async cancelForFile(fileId: number): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set({ status: 'cancelled', updated_at: nowIso() })
      .where('file_id', '=', fileId)
      .where('status', 'in', ['queued', 'running'])
      .execute();
  }

  async cancelForProject(projectId: number): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set({ status: 'cancelled', updated_at: nowIso() })
      .where('file_id', 'in', (eb) => eb.selectFrom('project_files').select('id').where('project_id', '=', projectId))
      .where('status', 'in', ['queued', 'running'])
      .execute();
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

  findForFile(fileId: number): Promise<JobRow[]> {
    return this.db.selectFrom('jobs').selectAll().where('file_id', '=', fileId).orderBy('id').execute();
  }
}
