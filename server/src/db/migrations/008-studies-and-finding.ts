import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The project's studies show who each study is of (issue 14, item 5). Entries recorded before
  // this migration keep null here: their headers are not read again.
  await db.schema.alterTable('file_entries').addColumn('patient_name', 'text').execute();
  await db.schema.alterTable('file_entries').addColumn('patient_id', 'text').execute();

  // The files table is searched, sorted and paged by the server (issue 14, item 6). Each sort key
  // has an index over the project's live files in the order the list asks for, with the id that
  // breaks ties, so a page of a project of 10,000 files is read in index order instead of sorting
  // them all (checked with EXPLAIN on both engines: server/test/file-list-plan.test.ts). The
  // name sorts as lower(file), so the index is on that expression. Partial (live files only): a
  // deleted file is never listed.
  const live = sql`where deleted_at is null`;
  await sql`create index project_files_live_created_idx on project_files (project_id, created_at, id) ${live}`.execute(db);
  await sql`create index project_files_live_updated_idx on project_files (project_id, updated_at, id) ${live}`.execute(db);
  await sql`create index project_files_live_size_idx on project_files (project_id, filesize, id) ${live}`.execute(db);
  await sql`create index project_files_live_name_idx on project_files (project_id, lower(file), id) ${live}`.execute(db);
  // Without a sort key the list is newest first (by id), as it always was.
  await sql`create index project_files_live_newest_idx on project_files (project_id, id) ${live}`.execute(db);
  // The status filter narrows to the project's files in one status, then sorts those few.
  await sql`create index project_files_live_status_idx on project_files (project_id, processing_status, id) ${live}`.execute(db);
}
