// Claims jobs from the database and runs them in this process, each kind up to its concurrency at
// a time. The same runner serves the in-process default and `npm run worker` on other machines.
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.js';
import type { JobRow } from '../db/schema.js';
import { JobCancelled, type JobKind } from './job-kind.js';
import type { JobsRepository } from './jobs.repository.js';
import { lazyChildLogger } from './lazy-child-logger.js';

export interface JobRunnerOptions {
  leaseMs: number;
  /** Where each run gets its scratch folder, `job-<id>` (DATA_DIR/work). */
  workRoot: string;
  pollMs: number;
  /** For kinds that do not set their own. */
  defaults: { concurrency: number; maxAttempts: number; backoffMs: number };
  /** Told how every run this runner claimed ended, and how long it took (metrics). */
  onJobEnded?: (ended: JobEnded) => void;
}

/** 'retrying': failed, queued again after its backoff; 'handed-back': the worker stopped mid-run. */
export type JobOutcome = 'done' | 'failed' | 'retrying' | 'cancelled' | 'handed-back';

export interface JobEnded {
  kind: string;
  outcome: JobOutcome;
  seconds: number;
}

/**
 * An idle lane set aside for a job its caller is about to queue already claimed by this runner
 * (enqueueJob's `claimedBy`, in the caller's transaction): the claim query, a write transaction of
 * its own and the nudge are spared. Exactly one of `start` and `release` must follow, soon.
 */
export interface LaneReservation {
  readonly workerId: string;
  readonly leaseMs: number;
  /** The job, committed as running under this runner's id: the lane runs it. */
  start(job: JobRow): void;
  /** Nothing was queued after all (the caller's transaction failed): the lane claims as usual. */
  release(): void;
}

/** A lane waiting for its next poll; `wake` with a job hands it that job instead of a claim. */
interface IdleLane {
  wake(job?: JobRow): void;
  /** Reserved: the poll timer stops, so only `wake` ends the wait. */
  hold(): void;
}

/** A job kind this runner does not know is in the queue: running beside it would leave it there forever. */
export class UnknownJobKind extends Error {}

class Stopping extends Error {}

export class JobRunner {
  readonly workerId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  #stopped = true;
  #loops: Promise<void>[] = [];
  #sweeper: NodeJS.Timeout | undefined;
  /** Idle lanes waiting for their next poll, by kind. */
  readonly #idleLanes = new Map<string, IdleLane[]>();
  /**
   * Jobs this process queued, by kind, while no lane of their kind was idle to be nudged (each is
   * then left for a claim): a lane that ran a job handed over by `reserve` claims next only while
   * one is owed, or when its last claim is a poll period old.
   */
  readonly #unannounced = new Map<string, number>();
  readonly #running = new Map<number, AbortController>();
  readonly #kinds: ReadonlyMap<string, JobKind<unknown>>;

  constructor(
    private readonly jobs: JobsRepository,
    kinds: readonly JobKind<unknown>[],
    private readonly options: JobRunnerOptions,
    private readonly log: FastifyBaseLogger,
  ) {
    this.#kinds = new Map(kinds.map((kind) => [kind.name, kind]));
  }

  /** Start-up check: throws UnknownJobKind naming any queued kind no definition handles. */
  async refuseUnknownKinds(): Promise<void> {
    const unknown = (await this.jobs.pendingNames()).filter((name) => !this.#kinds.has(name));
    if (unknown.length > 0) {
      throw new UnknownJobKind(`The job queue holds jobs of unknown kind ${unknown.map((n) => `'${n}'`).join(', ')}; known kinds: ${[...this.#kinds.keys()].join(', ')}`);
    }
  }

  /**
   * Removes scratch folders that no live run owns: a process killed mid-job leaves its folder, and
   * with several workers sharing DATA_DIR a folder is kept while its job runs under a live lease.
   * Run at start and then once a lease period: a process restarted while another worker was
   * finishing its interrupted job kept that job's folder, which must go once the job has ended.
   */
  async sweepWorkRoot(): Promise<void> {
    const names = await readdir(this.options.workRoot).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [];
      throw err;
    });
    if (names.length === 0) return;
    // This runner's own jobs are kept even should a renewal be late.
    const live = new Set([...(await this.jobs.liveIds()), ...this.#running.keys()].map((id) => `job-${id}`));
    const stale = names.filter((name) => !live.has(name));
    await Promise.all(stale.map((name) => rm(path.join(this.options.workRoot, name), { recursive: true, force: true })));
    if (stale.length > 0) this.log.info({ folders: stale.length }, 'removed work folders that interrupted jobs left behind');
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#loops = [...this.#kinds.values()].flatMap((kind) =>
      Array.from({ length: kind.concurrency ?? this.options.defaults.concurrency }, () => this.#loop(kind)),
    );
    this.#sweeper = setInterval(() => {
      this.sweepWorkRoot().catch((err: unknown) => this.log.warn({ err }, 'removing work folders of ended jobs failed'));
    }, this.options.leaseMs);
    this.#sweeper.unref();
  }

  /**
   * A job of `kind` was just queued: one idle lane of that kind looks now rather than at the next
   * poll. Waking every idle lane of every kind cost a claim query each per upload, most of them
   * finding nothing.
   */
  nudge(kind: string): void {
    const lane = this.#idleLanes.get(kind)?.shift();
    if (lane) lane.wake();
    else this.#unannounced.set(kind, (this.#unannounced.get(kind) ?? 0) + 1);
  }

  /**
   * An idle lane of `kind` for a job the caller queues already claimed, or undefined when every
   * lane is busy (the job is then queued as usual and claimed in turn). A lane is idle only when
   * its last claim found nothing due and this process queued nothing since without waking a lane,
   * so starting this job at once passes no one in the queue (but a retry fallen due meanwhile, or
   * another process's job, which the lane's next poll finds).
   */
  reserve(kind: string): LaneReservation | undefined {
    if (this.#stopped) return undefined;
    const lane = this.#idleLanes.get(kind)?.shift();
    if (lane === undefined) return undefined;
    lane.hold();
    let ended = false;
    const end = (job?: JobRow) => {
      if (ended) return;
      ended = true;
      lane.wake(job);
    };
    return { workerId: this.workerId, leaseMs: this.options.leaseMs, start: end, release: () => end() };
  }

  /** Stops claiming, aborts running jobs and hands them back to the queue for another worker. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#sweeper);
    for (const controller of this.#running.values()) controller.abort(new Stopping('worker stopping'));
    for (const lanes of this.#idleLanes.values()) for (const lane of lanes.splice(0)) lane.wake();
    await Promise.all(this.#loops);
  }

  async #loop(kind: JobKind<unknown>): Promise<void> {
    let handed: JobRow | undefined;
    let claimedAt = Number.NEGATIVE_INFINITY;
    while (!this.#stopped) {
      let job = handed;
      handed = undefined;
      const wasHanded = job !== undefined;
      if (job === undefined) {
        claimedAt = performance.now();
        try {
          job = await this.jobs.claim(this.workerId, this.options.leaseMs, kind.name);
        } catch (err) {
          this.log.error({ err }, 'claiming a job failed');
        }
        if (job) this.#announced(kind.name);
      }
      if (job) {
        await this.#run(kind, job, wasHanded);
        // A job handed over started on a lane whose last claim found nothing due: unless this
        // process queued one since without waking a lane, or that claim is a poll period old, a
        // claim now would find nothing either (per 600 small uploads, claims 626 → 107 and their
        // SQLite time 86 → 16 ms: docs/performance.md, "SQLite statements: built once, planned
        // once, run directly").
        if (wasHanded && !this.#stopped && !this.#mustClaim(kind.name, claimedAt)) handed = await this.#idle(kind.name);
      } else handed = await this.#idle(kind.name);
    }
    // Handed a job as the runner stopped: back to the queue, for the next worker to claim.
    if (handed !== undefined) {
      await this.jobs.retryLater(handed.id, this.workerId, 0, 'worker stopped').catch((err: unknown) => this.log.error({ err, jobId: handed.id }, 'handing a job back failed'));
    }
  }

  /** A claim found a job: one fewer of those queued without a nudge (jobs of other processes and retries are counted by none). */
  #announced(kind: string): void {
    const owed = this.#unannounced.get(kind) ?? 0;
    if (owed > 0) this.#unannounced.set(kind, owed - 1);
  }

  #mustClaim(kind: string, claimedAt: number): boolean {
    return (this.#unannounced.get(kind) ?? 0) > 0 || performance.now() - claimedAt >= this.options.pollMs;
  }

  /** Waits for a nudge or the next poll (undefined), or for a job handed over through `reserve`. */
  #idle(kind: string): Promise<JobRow | undefined> {
    return new Promise((resolve) => {
      const lanes = this.#idleLanes.get(kind) ?? [];
      this.#idleLanes.set(kind, lanes);
      const lane: IdleLane = {
        wake: (job) => {
          clearTimeout(timer);
          const at = lanes.indexOf(lane);
          if (at !== -1) lanes.splice(at, 1);
          resolve(job);
        },
        hold: () => clearTimeout(timer),
      };
      const timer = setTimeout(() => lane.wake(), this.options.pollMs);
      lanes.push(lane);
    });
  }

  async #run(kind: JobKind<unknown>, job: JobRow, handed: boolean): Promise<void> {
    const started = performance.now();
    const outcome = await this.#runClaimed(kind, job, handed);
    try {
      this.options.onJobEnded?.({ kind: kind.name, outcome, seconds: (performance.now() - started) / 1000 });
    } catch (err) {
      // An observer's failure must not stop this lane's loop.
      this.log.warn({ err, jobId: job.id }, 'telling how a job ended failed');
    }
  }

  /** `handed`: queued by this process moments ago through `reserve`, its payload checked then by this schema. */
  async #runClaimed(kind: JobKind<unknown>, job: JobRow, handed: boolean): Promise<JobOutcome> {
    const log = lazyChildLogger(this.log, { jobId: job.id, job: job.name, subject: job.subject, attempt: job.attempts });
    // Checked again when claimed, not only when queued: the row may predate the kind's schema. A
    // job handed over was written by enqueueJob from what this schema gave moments ago.
    const parsed = handed ? { success: true as const, data: parsePayload(job.payload) } : kind.payload.safeParse(parsePayload(job.payload));
    if (!parsed.success) {
      log.error({ err: parsed.error }, 'job payload is invalid; failed without retry');
      await this.jobs
        .finish(job.id, this.workerId, 'failed', `invalid payload: ${parsed.error.message}`)
        .catch((err: unknown) => log.error({ err }, 'recording a job failure failed'));
      return 'failed';
    }
    const payload = parsed.data;
    const controller = new AbortController();
    this.#running.set(job.id, controller);
    const heartbeat = setInterval(() => {
      this.jobs.renew(job.id, this.workerId, this.options.leaseMs).then(
        (mine) => mine || controller.abort(new JobCancelled('the job was cancelled or taken over')),
        (err: unknown) => this.log.warn({ err, jobId: job.id }, 'renewing a job lease failed'),
      );
    }, this.options.leaseMs / 3);
    const workDir = path.join(this.options.workRoot, `job-${job.id}`);
    // Made on first use: a folder made and removed for every job was a tenth of a small upload's cost.
    let made: Promise<string> | undefined;
    const scratch = () =>
      (made ??= (async () => {
        // Whatever an earlier attempt of this job left is not this run's.
        await rm(workDir, { recursive: true, force: true });
        await mkdir(workDir, { recursive: true, mode: 0o700 });
        return workDir;
      })());
    let completed = false;
    const complete = async (work: (trx: Db) => Promise<void>) => {
      await this.jobs.finishWith(job.id, this.workerId, work);
      completed = true;
    };
    try {
      log.info('job started');
      await kind.handle(payload, { signal: controller.signal, attempt: job.attempts, workDir: scratch, complete });
      if (!completed) await this.jobs.finish(job.id, this.workerId, 'done');
      log.info('job done');
      return 'done';
    } catch (err) {
      return await this.#failed(kind, { job, payload }, err, controller.signal, log).catch((e: unknown) => {
        log.error({ err: e }, 'recording a job failure failed');
        return 'failed' as const;
      });
    } finally {
      clearInterval(heartbeat);
      this.#running.delete(job.id);
      if (made !== undefined) await rm(workDir, { recursive: true, force: true }).catch((err: unknown) => log.warn({ err }, 'removing the job work folder failed'));
    }
  }

  async #failed(kind: JobKind<unknown>, { job, payload }: { job: JobRow; payload: unknown }, err: unknown, signal: AbortSignal, log: FastifyBaseLogger): Promise<JobOutcome> {
    const reason: unknown = signal.aborted ? signal.reason : err;
    if (reason instanceof Stopping) {
      await this.jobs.retryLater(job.id, this.workerId, 0, 'worker stopped');
      log.info('job handed back: worker stopping');
      return 'handed-back';
    }
    if (reason instanceof JobCancelled || err instanceof JobCancelled) {
      const message = reason instanceof Error ? reason.message : String(reason);
      await this.jobs.finish(job.id, this.workerId, 'cancelled', message);
      log.info({ reason: message }, 'job cancelled');
      return 'cancelled';
    }
    const message = err instanceof Error ? err.message : String(err);
    if (job.attempts >= (kind.maxAttempts ?? this.options.defaults.maxAttempts)) {
      log.error({ err }, 'job failed for good');
      await this.jobs.finish(job.id, this.workerId, 'failed', message);
      await kind.onGiveUp(payload, { message, attempts: job.attempts });
      return 'failed';
    }
    const delay = (kind.backoffMs ?? this.options.defaults.backoffMs) * 2 ** (job.attempts - 1);
    log.warn({ err, retryInMs: delay }, 'job failed; will retry');
    await this.jobs.retryLater(job.id, this.workerId, delay, message);
    return 'retrying';
  }
}

function parsePayload(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
