// A job kind is one typed definition: adding a kind is a new definition registered beside the
// others (services.ts), with no change to the queue's table, repository or runner.
import type { z } from 'zod';
import type { Db } from '../db/database.js';

/** Thrown, or given as an abort reason, when the work is no longer wanted: the job ends 'cancelled'. */
export class JobCancelled extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'JobCancelled';
  }
}

/** What enqueuing needs: the name the queue stores and the shape of the payload it accepts. */
export interface JobType<P> {
  readonly name: string;
  readonly payload: z.ZodType<P>;
  /**
   * What the job works on, as a key cancellation can find it by ('files/12'); null for a job
   * nothing can cancel.
   */
  subject(payload: P): string | null;
  /**
   * Whose work this is ('companies/3'): claiming takes turns between groups, so one group's many
   * jobs never keep another's waiting. '' puts the job in the group of jobs that name none.
   */
  fairKey(payload: P): string;
}

export interface JobContext {
  signal: AbortSignal;
  attempt: number;
  /**
   * A private, empty scratch folder for this run, made when first asked for (most runs need none:
   * a single DICOM file is indexed where it is stored). The runner removes it when the run ends,
   * however it ends, and a runner starting later removes any a killed process left behind.
   */
  workDir(): Promise<string>;
  /**
   * Runs the job's last writes in the transaction that marks it done (so the runner does not mark
   * it again): both or neither survive a crash. Throws JobCancelled, having written nothing, when
   * the job was cancelled or taken over meanwhile. A job that does not call it is marked done
   * by the runner once `handle` returns.
   */
  complete(work: (trx: Db) => Promise<void>): Promise<void>;
}

export interface JobKind<P> extends JobType<P> {
  handle(payload: P, context: JobContext): Promise<void>;
  /** What a permanent failure means for the thing the job worked on (after the last attempt). */
  onGiveUp(payload: P, failure: { message: string; attempts: number }): Promise<void>;
  /** Defaults: JOB_MAX_ATTEMPTS, JOB_RETRY_BASE_SECONDS and PROCESSING_CONCURRENCY. */
  maxAttempts?: number;
  /** First retry after this long, doubling with every further attempt. */
  backoffMs?: number;
  /** How many of this kind one runner works on at a time. */
  concurrency?: number;
}

export function jobType<P>(
  name: string,
  payload: z.ZodType<P>,
  subject: (payload: P) => string | null,
  fairKey: (payload: P) => string = () => '',
): JobType<P> {
  return { name, payload, subject, fairKey };
}

export function defineJobKind<P>(type: JobType<P>, definition: Omit<JobKind<P>, keyof JobType<P>>): JobKind<P> {
  return {
    ...definition,
    name: type.name,
    payload: type.payload,
    subject: (payload) => type.subject(payload),
    fairKey: (payload) => type.fairKey(payload),
  };
}
