import type { Kysely } from 'kysely';

// Virus scanning (issue 37 item 4). A file's scan state: 'not_scanned' (no scanner configured, or
// stored before one was: the default, so every older row says so, never 'clean'), 'waiting' (a
// scanner is configured and has not answered yet), 'clean' or 'infected' with the signature's name.
// An entry's scan_status is null when it was never scanned (skipped entries, older rows); its
// signature is set only when it is infected, which is what downloads and DICOMweb check.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('project_files')
    .addColumn('scan_status', 'varchar(16)', (c) => c.notNull().defaultTo('not_scanned'))
    .execute();
  await db.schema.alterTable('project_files').addColumn('scan_signature', 'text').execute();
  await db.schema.alterTable('file_entries').addColumn('scan_status', 'varchar(16)').execute();
  await db.schema.alterTable('file_entries').addColumn('scan_signature', 'text').execute();
}
