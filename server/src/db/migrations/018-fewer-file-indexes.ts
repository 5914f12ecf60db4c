import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Every upload writes its file row into each index of project_files. This one, on (project_id,
  // deleted_at), is what no query needs since migrations 007 and 008: the project's live files are
  // read through the partial indexes of 008 (newest first: project_files_live_newest_idx), and
  // every other lookup by project (its file ids when it is deleted, an upload's earlier copy)
  // through project_files_sha256_idx, which starts with project_id. Checked with EXPLAIN on both
  // engines: server/test/file-list-plan.test.ts.
  await db.schema.dropIndex('project_files_project_idx').execute();
}
