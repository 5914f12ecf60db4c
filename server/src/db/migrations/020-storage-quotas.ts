import type { Kysely } from 'kysely';

// A company's storage allowance (issue 31): null is unlimited. An upload in progress by the
// multipart call holds what it announced in its pending_uploads row (the request's length), so
// uploads running side by side, on any node, count each other before storing a byte; a row of the
// tus path (finishing an upload already counted by its tus_uploads row) holds 0.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('companies').addColumn('quota_bytes', 'bigint').execute();
  await db.schema.alterTable('pending_uploads').addColumn('company_id', 'integer').execute();
  await db.schema.alterTable('pending_uploads').addColumn('reserved_bytes', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
}
