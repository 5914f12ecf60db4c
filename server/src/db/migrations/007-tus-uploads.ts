import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A resumable (tus) upload still receiving bytes: who started it, where it goes, and when it
  // expires. Recorded before its first byte is stored and removed after its bytes are, so a tus
  // file with no row is always a leftover (tus/tus-uploads.service.ts).
  await db.schema
    .createTable('tus_uploads')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id'))
    .addColumn('file_name', 'varchar(255)', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    // 'open' while bytes may arrive; 'finishing' once the last byte landed and one request checks
    // and commits it (so two final requests cannot both commit).
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    // 1 once the first bytes were found to be what the name says (checked as soon as they arrive).
    .addColumn('head_checked', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tus_uploads_user_idx').on('tus_uploads').columns(['user_id', 'state']).execute();
  await db.schema.createIndex('tus_uploads_expires_idx').on('tus_uploads').column('expires_at').execute();
  // Duplicates are found by content within a project (FilesRepository).
  await db.schema.createIndex('project_files_sha256_idx').on('project_files').columns(['project_id', 'sha256']).execute();
}
