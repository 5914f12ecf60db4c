import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

export async function up(db: Kysely<unknown>, { id }: MigrationContext): Promise<void> {
  // Short-lived, single-use download URLs (files/download-links.service.ts): the browser's own
  // download manager fetches them without a session header. Only the ticket's SHA-256 is kept.
  await db.schema
    .createTable('download_links')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('ticket_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('file_id', 'integer', (c) => c.notNull().references('project_files.id'))
    .addColumn('entry_id', 'integer')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    // Before its first use: the download must start by then.
    .addColumn('start_by', 'varchar(32)', (c) => c.notNull())
    .addColumn('used_at', 'varchar(32)')
    // SHA-256 of the first user's address and User-Agent: only they may resume.
    .addColumn('client_hash', 'varchar(64)')
    // The row is of no use after this (start_by, then the end of the resume window) and is swept.
    .addColumn('dead_after', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('download_links_dead_idx').on('download_links').column('dead_after').execute();
  await db.schema.createIndex('download_links_file_idx').on('download_links').column('file_id').execute();
}
