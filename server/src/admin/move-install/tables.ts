// What the move copies, table by table, in an order every foreign key allows.
import type { Database } from '../../db/schema.js';

export type TableName = keyof Database;

export interface CopiedTable {
  name: TableName;
  /** The column rows are read and compared by, in order. */
  key: string;
  /** PostgreSQL numbers its rows from a sequence that must start after the copied ones. */
  serial: boolean;
}

export const COPIED_TABLES: readonly CopiedTable[] = [
  { name: 'companies', key: 'id', serial: true },
  { name: 'company_sso', key: 'company_id', serial: false },
  { name: 'users', key: 'id', serial: true },
  { name: 'sessions', key: 'id', serial: true },
  { name: 'company_two_factor', key: 'company_id', serial: false },
  { name: 'user_second_factors', key: 'user_id', serial: false },
  { name: 'second_factor_recovery_codes', key: 'id', serial: true },
  { name: 'second_factor_challenges', key: 'id', serial: true },
  { name: 'login_throttle', key: 'key', serial: false },
  { name: 'projects', key: 'id', serial: true },
  { name: 'project_keys', key: 'project_id', serial: false },
  { name: 'project_files', key: 'id', serial: true },
  { name: 'deliveries', key: 'id', serial: true },
  { name: 'delivery_files', key: 'id', serial: true },
  { name: 'delivery_bundles', key: 'storage_key', serial: false },
  { name: 'file_entries', key: 'id', serial: true },
  { name: 'series_thumbnails', key: 'id', serial: true },
  { name: 'jobs', key: 'id', serial: true },
  { name: 'download_links', key: 'id', serial: true },
  { name: 'password_links', key: 'id', serial: true },
  { name: 'password_requests', key: 'id', serial: true },
  { name: 'sso_logins', key: 'id', serial: true },
  { name: 'project_rules', key: 'project_id', serial: false },
  { name: 'notification_preferences', key: 'user_id', serial: false },
  { name: 'webhook_endpoints', key: 'id', serial: true },
  { name: 'webhook_deliveries', key: 'id', serial: true },
  { name: 'notification_mails', key: 'id', serial: true },
  { name: 'api_tokens', key: 'id', serial: true },
  { name: 'api_token_addresses', key: 'id', serial: true },
  { name: 'audit_log', key: 'seq', serial: false },
  { name: 'audit_head', key: 'id', serial: false },
];

/**
 * Left behind, with the words the report counts them in (null: counted with their upload). All
 * hold uploads in flight when the server stopped: their bytes are in the old DATA_DIR's staging
 * area, or in chunk objects no kept row points to.
 */
export const LEFT_TABLES: Readonly<Partial<Record<TableName, { one: string; many: string } | null>>> = {
  tus_uploads: {
    one: 'unfinished resumable upload (its sender starts it again)',
    many: 'unfinished resumable uploads (their senders start them again)',
  },
  tus_offsets: null,
  tus_chunks: null,
  pending_uploads: {
    one: 'upload cut off when the server stopped (never listed in a project)',
    many: 'uploads cut off when the server stopped (never listed in a project)',
  },
};

/** The migrator's own bookkeeping: the target's migrations write theirs. */
export const MIGRATOR_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);
