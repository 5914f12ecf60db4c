import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

/** The hash before the first row of the audit chain (server/src/audit/audit-chain.ts). */
const GENESIS = '0'.repeat(64);

export async function up(db: Kysely<unknown>, { id }: MigrationContext): Promise<void> {
  // Where a reset link or a notice about a forgotten password is sent, when SMTP is configured.
  await db.schema.alterTable('users').addColumn('email', 'varchar(255)').execute();

  // A single-use link to set a new password: only the SHA-256 of its secret is kept.
  await db.schema
    .createTable('password_links')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('created_by', 'integer', (c) => c.references('users.id'))
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('used_at', 'varchar(32)')
    .execute();
  await db.schema.createIndex('password_links_user_idx').on('password_links').column('user_id').execute();

  // 'Forgot your password?': what the user's CompanyAdmins see, until a reset link resolves it.
  await db.schema
    .createTable('password_requests')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('address', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('resolved_at', 'varchar(32)')
    .execute();
  await db.schema.createIndex('password_requests_company_idx').on('password_requests').columns(['company_id', 'resolved_at']).execute();
  await db.schema.createIndex('password_requests_address_idx').on('password_requests').columns(['address', 'created_at']).execute();

  // The audit trail: appended only, each row's hash covering the row and the previous hash. seq is
  // given by the application from audit_head, whose single row every append updates first, in the
  // same transaction: appends are serialised on both engines, so the chain cannot fork.
  await db.schema
    .createTable('audit_log')
    .addColumn('seq', 'integer', (c) => c.primaryKey())
    .addColumn('at', 'varchar(32)', (c) => c.notNull())
    .addColumn('action', 'varchar(64)', (c) => c.notNull())
    .addColumn('actor_id', 'integer')
    .addColumn('actor_name', 'varchar(255)')
    .addColumn('company_id', 'integer')
    .addColumn('ip', 'varchar(64)')
    .addColumn('user_agent', 'varchar(512)')
    .addColumn('object_type', 'varchar(32)')
    .addColumn('object_id', 'varchar(64)')
    .addColumn('details', 'text')
    .addColumn('prev_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('hash', 'varchar(64)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_company_idx').on('audit_log').columns(['company_id', 'seq']).execute();
  await db.schema.createIndex('audit_log_at_idx').on('audit_log').column('at').execute();

  // last_*: the newest row; anchor_*: the row before the oldest kept one (the genesis until a prune).
  await db.schema
    .createTable('audit_head')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('last_seq', 'integer', (c) => c.notNull())
    .addColumn('last_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('anchor_seq', 'integer', (c) => c.notNull())
    .addColumn('anchor_hash', 'varchar(64)', (c) => c.notNull())
    .execute();
  await sql`insert into audit_head (id, last_seq, last_hash, anchor_seq, anchor_hash) values (1, 0, ${GENESIS}, 0, ${GENESIS})`.execute(db);
}
