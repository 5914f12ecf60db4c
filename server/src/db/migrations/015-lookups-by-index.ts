import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Claiming a job looks for the due ones of a kind (queued, or running under a lapsed lease).
  // Without this index the search read every job the kind ever had, finished ones included: a claim
  // grew with the queue's history, two claims per upload (issue 14, `npm run bench:files`).
  await db.schema.createIndex('jobs_due_idx').on('jobs').columns(['name', 'status', 'run_at']).execute();
}
