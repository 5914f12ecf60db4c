// A soft delete frees no bytes: this gives them back once DELETED_RETENTION_DAYS have passed (issue
// 31). For each deleted file or delivery, and each file of a deleted project, its stored objects
// go (the upload, a delivery's files and bundles, every extracted entry), then its row is marked
// purged and the rows that only pointed at those objects are removed, with one audit row, in one
// transaction. Objects are removed first: a crash between leaves a file that is found again and
// whose removals find nothing, and two workers purging the same file remove the same objects but
// only one marks it, counts its bytes and audits it.
import type { AuditActor, AuditTrail } from '../audit/index.js';
import type { Storage } from '../storage/storage.js';
import type { PurgeCandidate, PurgeRepository } from './purge.repository.js';

export interface PurgeOptions {
  /** DELETED_RETENTION_DAYS in milliseconds. */
  retentionMs: number;
  /** JOB_LEASE_SECONDS: how long a cancelled processing job may still write before its worker notices. */
  leaseMs: number;
  /** Milliseconds since the epoch (tests move it). */
  clock?: () => number;
}

export interface PurgeResult {
  files: number;
  deliveries: number;
  /** Bytes of the objects removed. */
  bytes: number;
  /** Due, but left for a later run: their processing may still be writing (see mayStillBeProcessed). */
  deferred: number;
}

/** Files looked at per query. */
const BATCH = 200;

export class PurgeService {
  readonly #clock: () => number;

  constructor(
    private readonly repo: PurgeRepository,
    private readonly storage: Storage,
    private readonly audit: AuditTrail,
    private readonly options: PurgeOptions,
  ) {
    this.#clock = options.clock ?? Date.now;
  }

  /**
   * Purges every file deleted `olderThanMs` ago or earlier (default: the retention). `actor`: who
   * the audit rows name, when not the context's (the command line sets its own).
   */
  async purgeDue(opts: { olderThanMs?: number; actor?: AuditActor; signal?: AbortSignal } = {}): Promise<PurgeResult> {
    const now = new Date(this.#clock());
    const cutoff = new Date(now.getTime() - (opts.olderThanMs ?? this.options.retentionMs)).toISOString();
    const result: PurgeResult = { files: 0, deliveries: 0, bytes: 0, deferred: 0 };
    let after = 0;
    for (;;) {
      const batch = await this.repo.due(cutoff, after, BATCH);
      if (batch.length === 0) return result;
      for (const file of batch) {
        opts.signal?.throwIfAborted();
        after = file.id;
        if (await this.repo.mayStillBeProcessed(file.id, this.options.leaseMs, now)) {
          result.deferred += 1;
          continue;
        }
        const bytes = await this.#purge(file, now, opts.actor);
        if (bytes === null) continue;
        if (file.kind === 'folder') result.deliveries += 1;
        else result.files += 1;
        result.bytes += bytes;
      }
    }
  }

  /** DELETED_RETENTION_DAYS in milliseconds. */
  get retentionMs(): number {
    return this.options.retentionMs;
  }

  /** The bytes freed, or null when another worker purged the file first. */
  async #purge(file: PurgeCandidate, now: Date, actor: AuditActor | undefined): Promise<number | null> {
    const objects = await this.repo.objectsOf(file);
    // Entry objects are grouped under the file's id: whatever an interrupted attempt stored
    // without recording it goes too.
    for await (const listed of this.storage.list(`entries/${file.id}/`)) if (!objects.has(listed.key)) objects.set(listed.key, listed.size);
    for (const key of objects.keys()) await this.storage.delete(key);
    const bytes = [...objects.values()].reduce((sum, size) => sum + size, 0);
    const marked = await this.repo.transaction(async (trx) => {
      if (!(await this.repo.markPurged(trx, file.id, now))) return false;
      await this.audit.recordIn(trx, {
        action: file.kind === 'folder' ? 'delivery.purged' : 'file.purged',
        companyId: file.company_id,
        object: { type: 'file', id: file.id },
        details: {
          name: file.file,
          project_id: file.project_id,
          deleted_at: file.deleted_at ?? file.project_deleted_at,
          ...(file.deleted_at === null ? { project_deleted: true } : {}),
          objects: objects.size,
          bytes,
        },
        actor,
      });
      return true;
    });
    return marked ? bytes : null;
  }

  /**
   * Queues a purge run when something is due (the API servers' periodic sweep); a worker of any
   * node runs it. Answers whether one was queued.
   */
  async schedule(): Promise<boolean> {
    const cutoff = new Date(this.#clock() - this.options.retentionMs).toISOString();
    if ((await this.repo.due(cutoff, 0, 1)).length === 0) return false;
    return this.repo.queueRun();
  }

  /** A file, delivery or project was just deleted: with no retention its bytes go at once. */
  async deleted(): Promise<void> {
    if (this.options.retentionMs === 0) await this.repo.queueRun();
  }
}
