import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

export async function up(db: Kysely<unknown>, { id }: MigrationContext): Promise<void> {
  // A company's OpenID Connect sign-in (server/src/sso/): at most one provider per company. The
  // client secret is kept only encrypted (sso/secret-box.ts), never in clear.
  await db.schema
    .createTable('company_sso')
    .addColumn('company_id', 'integer', (c) => c.primaryKey().references('companies.id'))
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('issuer', 'varchar(512)', (c) => c.notNull())
    .addColumn('client_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('client_secret_enc', 'text')
    .addColumn('password_login_allowed', 'integer', (c) => c.notNull())
    .addColumn('auto_create_users', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();

  // One sign-in through a provider, from the redirect to the portal's session: kept in the database
  // so that any API node may take the provider's answer. Only hashes of the state and of the
  // one-time code handed to the web app are kept; each row is used once and lives minutes.
  await db.schema
    .createTable('sso_logins')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('state_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('code_verifier', 'varchar(128)', (c) => c.notNull())
    .addColumn('nonce', 'varchar(128)', (c) => c.notNull())
    .addColumn('redirect_uri', 'varchar(1024)', (c) => c.notNull())
    .addColumn('stage', 'varchar(16)', (c) => c.notNull())
    .addColumn('user_id', 'integer')
    .addColumn('handoff_hash', 'varchar(64)', (c) => c.unique())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sso_logins_expires_idx').on('sso_logins').column('expires_at').execute();
}
