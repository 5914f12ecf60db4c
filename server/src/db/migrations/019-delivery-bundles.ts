import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

// A folder's small files arrive packed in tar bundles (contract/src/delivery-bundle.ts): each file
// is still one row of delivery_files, at its path, but its bytes are a range of the bundle's one
// stored object, `storage_offset` bytes in (null: the file is an object of its own, as before). A
// storage key may then be shared by the files of one bundle, so it is no longer unique; it stays
// indexed (the completion's check and the sweep find a bundle's files by it). The bundle's object
// itself is a row of delivery_bundles.
export async function up(db: Kysely<unknown>, { dialect, id }: MigrationContext): Promise<void> {
  if (dialect === 'postgres') {
    await sql`ALTER TABLE delivery_files DROP CONSTRAINT delivery_files_storage_key_key`.execute(db);
    await db.schema.alterTable('delivery_files').addColumn('storage_offset', 'bigint').execute();
  } else {
    // SQLite cannot drop a column's UNIQUE: the table is rebuilt (SQLite's documented way).
    await db.schema
      .createTable('delivery_files_new')
      .addColumn('id', id, (c) => c.primaryKey())
      .addColumn('delivery_id', 'integer', (c) => c.notNull().references('deliveries.id'))
      .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
      .addColumn('relative_path', 'varchar(1024)', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
      .addColumn('storage_key', 'varchar(255)', (c) => c.notNull())
      .addColumn('storage_offset', 'bigint')
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addUniqueConstraint('delivery_files_path_unique', ['delivery_id', 'relative_path'])
      .execute();
    await sql`INSERT INTO delivery_files_new (id, delivery_id, company_id, relative_path, size, sha256, storage_key, storage_offset, created_at)
      SELECT id, delivery_id, company_id, relative_path, size, sha256, storage_key, NULL, created_at FROM delivery_files`.execute(db);
    await db.schema.dropTable('delivery_files').execute();
    await db.schema.alterTable('delivery_files_new').renameTo('delivery_files').execute();
  }
  await db.schema.createIndex('delivery_files_storage_key_idx').on('delivery_files').column('storage_key').execute();

  // A bundle's object as a whole, with its size and SHA-256: what moving an install copies and
  // checks (its files are checked as ranges of it, like entries read in place).
  await db.schema
    .createTable('delivery_bundles')
    .addColumn('storage_key', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('delivery_id', 'integer', (c) => c.notNull().references('deliveries.id'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('delivery_bundles_delivery_idx').on('delivery_bundles').column('delivery_id').execute();
}
