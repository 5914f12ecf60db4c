import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Claiming a job looks for the due ones of a kind (queued, or running under a lapsed lease).
  // Without this index the search read every job the kind ever had, done ones included: a claim
  // grew with the queue's history (0.15 ms at 2,000 finished jobs, two claims per upload; issue 14).
  await db.schema.createIndex('jobs_due_idx').on('jobs').columns(['name', 'status', 'run_at']).execute();
}
