import { sql, type Kysely } from 'kysely';

// A soft-deleted file or delivery gives back its bytes once DELETED_RETENTION_DAYS have passed
// (files/purge.service.ts). Its row stays, marked with when that happened: the audit trail, the
// deleted_at history and the duplicate marks of later copies read it, and an id never comes back
// as another file's. What goes with the bytes is every row that only points at them (extracted
// entries, a delivery's files and bundles), so that nothing, moving an install included, looks for
// an object that is gone.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('project_files').addColumn('purged_at', 'varchar(32)').execute();
  // What the purge looks for: files deleted and not yet purged, oldest deletion first. Partial, so
  // the live files (nearly all of them) are not in it.
  await sql`create index project_files_to_purge_idx on project_files (deleted_at, id) where deleted_at is not null and purged_at is null`.execute(db);
}
