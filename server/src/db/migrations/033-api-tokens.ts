import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

// Personal API tokens (issue 37, item 1). Only the secret's SHA-256 is kept. `project_ids` (a JSON
// array, or null for no limit) is read with the token on every request, so it lives in its row.
// The addresses a token was used from are kept so that the first use from a new one is audited once.
export async function up(db: Kysely<unknown>, { id }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('api_tokens')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    // The owner's company, so that a CompanyAdmin's list is one indexed query.
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('scope', 'varchar(16)', (c) => c.notNull())
    .addColumn('project_ids', 'varchar(2048)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('last_used_at', 'varchar(32)')
    .addColumn('last_used_ip', 'varchar(64)')
    .addColumn('revoked_at', 'varchar(32)')
    .execute();
  await db.schema.createIndex('api_tokens_user_idx').on('api_tokens').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('api_tokens_company_idx').on('api_tokens').columns(['company_id', 'id']).execute();

  await db.schema
    .createTable('api_token_addresses')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('token_id', 'integer', (c) => c.notNull().references('api_tokens.id'))
    .addColumn('address', 'varchar(64)', (c) => c.notNull())
    .addColumn('first_used_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('api_token_addresses_unique').on('api_token_addresses').columns(['token_id', 'address']).unique().execute();
}
