// The daily digest is queued once a day, from NOTIFY_DIGEST_HOUR_UTC on, by the API servers'
// periodic sweep (serve.ts); the job's subject names the day, so a second sweep that day (or a
// second server) finds it queued and adds none.
import type { Db } from '../db/database.js';
import { enqueueJob, type JobsRepository } from '../jobs/index.js';
import { SEND_DIGEST } from './notification-jobs.js';

export class DigestSchedule {
  constructor(
    private readonly db: Db,
    private readonly jobs: JobsRepository,
    private readonly options: { hourUtc: number; clock: () => number },
  ) {}

  /** Queues today's digest when its hour has come and it is not queued yet; answers whether it did. */
  async queueIfDue(): Promise<boolean> {
    const now = new Date(this.options.clock());
    if (now.getUTCHours() < this.options.hourUtc) return false;
    const day = now.toISOString().slice(0, 10);
    const subject = SEND_DIGEST.subject({ day });
    if (subject !== null && (await this.jobs.findBySubject(subject)).length > 0) return false;
    await enqueueJob(this.db, SEND_DIGEST, { day });
    return true;
  }
}
