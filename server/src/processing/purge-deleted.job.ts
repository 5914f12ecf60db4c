// The queue's job that gives back the bytes of files and deliveries deleted longer ago than
// DELETED_RETENTION_DAYS (purge.service.ts does the work). Queued by the API servers' periodic
// sweep when something is due, and at once by a deletion when the retention is 0.
import { z } from 'zod';
import type { AuditActor } from '../audit/index.js';
import { defineJobKind, jobType, type JobKind } from '../jobs/index.js';

/** One run purges everything due when it runs, so it carries nothing. */
const ZPurgePayload = z.object({}).strict();
export type TPurgePayload = z.infer<typeof ZPurgePayload>;

/** Not cancelled by any deletion; every run in the same fair group (there is rarely more than one). */
export const PURGE_DELETED = jobType('purge-deleted', ZPurgePayload, () => 'purge-deleted');

/** Who the audit trail names for a purge the queue ran. */
export const PURGE_ACTOR: AuditActor = { id: null, name: 'retention', companyId: null };

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
