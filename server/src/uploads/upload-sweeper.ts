// Interrupted uploads leave bytes nobody can see: a temp file, or an object whose row was never
// committed. Both are removed at start-up and then periodically (DESIGN §6).
import type { Storage } from '../storage/storage.js';
import type { PendingUploadsRepository } from './pending-uploads.repository.js';

export interface SweepResult {
  temporaries: number;
  abandoned: number;
}

/**
 * `everything` is for start-up of the only process that uploads (SQLite): whatever is in flight
 * died with the last process. Otherwise only uploads whose lease ran out are removed, so other
 * API nodes' uploads in progress are left alone.
 */
export async function sweepUploads(
  storage: Storage,
  pending: PendingUploadsRepository,
  opts: { everything: boolean; leaseMs: number },
): Promise<SweepResult> {
  const temporaries = await storage.sweepIncomplete(opts.everything ? {} : { olderThanMs: opts.leaseMs });
  const keys = await pending.abandoned(opts.everything);
  for (const key of keys) {
    await storage.delete(key);
    await pending.end(key);
  }
  return { temporaries, abandoned: keys.length };
}
