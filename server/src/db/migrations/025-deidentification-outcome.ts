import type { Kysely } from 'kysely';

// What the server's check of de-identification found for a file row (issue 33, items 4 and 5): JSON
// of the outcome (profile, edition, instances de-identified in the browser and by the server,
// counts, instances flagged for review). Null in a project whose profile is 'off', and for rows
// processed before this migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('project_files').addColumn('deid_outcome', 'text').execute();
}
