// The queue's job that gives back the bytes of files and deliveries deleted longer ago than
// DELETED_RETENTION_DAYS (purge.service.ts does the work). Queued by the API servers' periodic
// sweep when something is due, and at once by a deletion when the retention is 0.
import type { AuditActor } from '../audit/index.js';
import { PURGE_ACTOR, PURGE_DELETED, type TPurgePayload } from '../files/index.js';
import { defineJobKind, type JobKind } from '../jobs/index.js';

export interface DeletedPurger {
  purgeDue(opts: { actor: AuditActor; signal?: AbortSignal }): Promise<unknown>;
}

export function purgeDeletedJob(purger: DeletedPurger): JobKind<TPurgePayload> {
  return defineJobKind(PURGE_DELETED, {
    handle: async (_payload, { signal }) => {
      await purger.purgeDue({ actor: PURGE_ACTOR, signal });
    },
    // Nothing to mark: files left unpurged are due again at the next run.
    onGiveUp: () => Promise.resolve(),
    // One run at a time per worker is plenty: it works through every due file.
    concurrency: 1,
  });
}
