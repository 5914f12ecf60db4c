import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

// People told (issue 35, item 3). A user's choice of e-mails; the webhook endpoints of a company
// (company_id) or of the whole portal (null), their signing secret only ever sealed
// (sso/secret-box.ts); each message sent to an endpoint, with its attempts, as its log; and the
// e-mails waiting to go (at once, by a job, or in the next daily digest).
export async function up(db: Kysely<unknown>, { id }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('notification_preferences')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id'))
    // A JSON array of the contract's event names.
    .addColumn('events', 'varchar(512)', (c) => c.notNull())
    .addColumn('mode', 'varchar(16)', (c) => c.notNull())
    .addColumn('all_projects', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('company_id', 'integer', (c) => c.references('companies.id'))
    .addColumn('url', 'varchar(2048)', (c) => c.notNull())
    .addColumn('events', 'varchar(512)', (c) => c.notNull())
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('created_by', 'integer')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_company_idx').on('webhook_endpoints').column('company_id').execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('endpoint_id', 'integer', (c) => c.notNull())
    .addColumn('company_id', 'integer')
    .addColumn('event', 'varchar(32)', (c) => c.notNull())
    .addColumn('message_id', 'varchar(64)', (c) => c.notNull())
    // The body as first signed: every attempt sends the same bytes.
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'varchar(512)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('delivered_at', 'varchar(32)')
    .execute();
  await db.schema.createIndex('webhook_deliveries_endpoint_idx').on('webhook_deliveries').columns(['endpoint_id', 'id']).execute();

  await db.schema
    .createTable('notification_mails')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('company_id', 'integer', (c) => c.notNull())
    .addColumn('event', 'varchar(32)', (c) => c.notNull())
    .addColumn('file_id', 'integer', (c) => c.notNull())
    // 'immediate' (its own job sends it) or 'daily' (the next digest does).
    .addColumn('mode', 'varchar(16)', (c) => c.notNull())
    // The line the e-mail says, written when the event happened (names as they were then).
    .addColumn('line', 'varchar(1024)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notification_mails_user_idx').on('notification_mails').columns(['mode', 'user_id', 'id']).execute();
}
