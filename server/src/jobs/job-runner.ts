// Claims jobs from the database and runs them, `concurrency` at a time, in this process. The same
// runner serves the in-process default and `npm run worker` processes on other machines.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { JobRow } from '../db/schema.js';
import type { JobsRepository } from './jobs.repository.js';
import { JobCancelled } from '../files/process-upload.job.js';

export interface JobRunnerOptions {
  concurrency: number;
  leaseMs: number;
  pollMs: number;
  maxAttempts: number;
  /** First retry after this long, doubling with every further attempt. */
  backoffMs: number;
}

export type JobHandler = (job: JobRow, signal: AbortSignal) => Promise<void>;

/** What a handler's permanent failure means for the thing it worked on. */
export type OnGiveUp = (job: JobRow, message: string) => Promise<void>;

class Stopping extends Error {}

export class JobRunner {
  readonly workerId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  #stopped = true;
  #loops: Promise<void>[] = [];
  #wake: (() => void)[] = [];
  readonly #running = new Map<number, AbortController>();

  constructor(
    private readonly jobs: JobsRepository,
    private readonly handlers: Record<string, JobHandler>,
    private readonly onGiveUp: OnGiveUp,
    private readonly options: JobRunnerOptions,
    private readonly log: FastifyBaseLogger,
  ) {}

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#loops = Array.from({ length: this.options.concurrency }, () => this.#loop());
  }

  /** A job was just queued: look now rather than at the next poll. */
  nudge(): void {
    for (const wake of this.#wake.splice(0)) wake();
  }

  /** Stops claiming, aborts running jobs and hands them back to the queue for another worker. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const controller of this.#running.values()) controller.abort(new Stopping('worker stopping'));
    this.nudge();
    await Promise.all(this.#loops);
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      let job: JobRow | undefined;
      try {
        job = await this.jobs.claim(this.workerId, this.options.leaseMs);
      } catch (err) {
        this.log.error({ err }, 'claiming a job failed');
      }
      if (job) await this.#run(job);
      else await this.#idle();
    }
  }

  #idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.options.pollMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake.push(done);
    });
  }

  async #run(job: JobRow): Promise<void> {
    const handler = this.handlers[job.name];
    const controller = new AbortController();
    this.#running.set(job.id, controller);
    const heartbeat = setInterval(() => {
      this.jobs.renew(job.id, this.workerId, this.options.leaseMs).then(
        (mine) => mine || controller.abort(new JobCancelled('the job was cancelled or taken over')),
        (err: unknown) => this.log.warn({ err, jobId: job.id }, 'renewing a job lease failed'),
      );
    }, this.options.leaseMs / 3);
    const log = this.log.child({ jobId: job.id, job: job.name, fileId: job.file_id, attempt: job.attempts });
    try {
      if (!handler) throw new Error(`no handler for job ${job.name}`);
      log.info('job started');
      await handler(job, controller.signal);
      await this.jobs.finish(job.id, this.workerId, 'done');
      log.info('job done');
    } catch (err) {
      await this.#failed(job, err, controller.signal, log).catch((e: unknown) => log.error({ err: e }, 'recording a job failure failed'));
    } finally {
      clearInterval(heartbeat);
      this.#running.delete(job.id);
    }
  }

  async #failed(job: JobRow, err: unknown, signal: AbortSignal, log: FastifyBaseLogger): Promise<void> {
    const reason: unknown = signal.aborted ? signal.reason : err;
    if (reason instanceof Stopping) {
      await this.jobs.retryLater(job.id, this.workerId, 0, 'worker stopped');
      log.info('job handed back: worker stopping');
      return;
    }
    if (reason instanceof JobCancelled || err instanceof JobCancelled) {
      const message = reason instanceof Error ? reason.message : String(reason);
      await this.jobs.finish(job.id, this.workerId, 'cancelled', message);
      log.info({ reason: message }, 'job cancelled');
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    if (job.attempts >= this.options.maxAttempts) {
      log.error({ err }, 'job failed for good');
      await this.jobs.finish(job.id, this.workerId, 'failed', message);
      await this.onGiveUp(job, message);
      return;
    }
    const delay = this.options.backoffMs * 2 ** (job.attempts - 1);
    log.warn({ err, retryInMs: delay }, 'job failed; will retry');
    await this.jobs.retryLater(job.id, this.workerId, delay, message);
  }
}
