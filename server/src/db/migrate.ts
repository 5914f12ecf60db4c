// Migrations are plain modules run in order by Kysely's migrator; the only dialect difference
// they see is how an auto-incrementing id is spelled.
import type { Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationResultSet } from 'kysely/migration';
import type { DatabaseHandle } from './database.js';
import type { MigrationContext } from './migration-context.js';
import * as m001 from './migrations/001-identity.js';
import * as m002 from './migrations/002-projects-files.js';
import * as m003 from './migrations/003-processing.js';
import * as m004 from './migrations/004-entry-offsets.js';
import * as m005 from './migrations/005-job-payloads.js';
import * as m006 from './migrations/006-throttle.js';
import * as m007 from './migrations/007-tus-uploads.js';
import * as m008 from './migrations/008-studies-and-finding.js';
import * as m009 from './migrations/009-job-fairness.js';
import * as m010 from './migrations/010-deliveries.js';
import * as m011 from './migrations/011-admin-audit.js';
import * as m012 from './migrations/012-download-links.js';
import * as m013 from './migrations/013-entries-by-instance.js';
import * as m014 from './migrations/014-sso.js';
import * as m015 from './migrations/015-lookups-by-index.js';
import * as m017 from './migrations/017-tus-offsets.js';
import * as m018 from './migrations/018-fewer-file-indexes.js';
import * as m019 from './migrations/019-delivery-bundles.js';
import * as m020 from './migrations/020-storage-quotas.js';
import * as m021 from './migrations/021-purged-files.js';
import * as m022 from './migrations/022-frames-as-written.js';
import * as m023 from './migrations/023-finished-tus-uploads.js';
import * as m024 from './migrations/024-deidentification.js';
import * as m025 from './migrations/025-deidentification-outcome.js';
import * as m027 from './migrations/027-qido-fields.js';
import * as m029 from './migrations/029-review.js';
import * as m030 from './migrations/030-notifications.js';
import * as m031 from './migrations/031-series-thumbnails.js';
import * as m033 from './migrations/033-api-tokens.js';
import * as m034 from './migrations/034-two-factor.js';
import * as m035 from './migrations/035-virus-scan.js';

type Step = { up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> };
const steps: Record<string, Step> = {
  '001-identity': m001,
  '002-projects-files': m002,
  '003-processing': m003,
  '004-entry-offsets': m004,
  '005-job-payloads': m005,
  '006-throttle': m006,
  '007-tus-uploads': m007,
  '008-studies-and-finding': m008,
  '009-job-fairness': m009,
  '010-deliveries': m010,
  '011-admin-audit': m011,
  '012-download-links': m012,
  '013-entries-by-instance': m013,
  '014-sso': m014,
  '015-lookups-by-index': m015,
  '017-tus-offsets': m017,
  '018-fewer-file-indexes': m018,
  '019-delivery-bundles': m019,
  '020-storage-quotas': m020,
  '021-purged-files': m021,
  '022-frames-as-written': m022,
  '023-finished-tus-uploads': m023,
  '024-deidentification': m024,
  '025-deidentification-outcome': m025,
  '027-qido-fields': m027,
  '029-review': m029,
  '030-notifications': m030,
  '031-series-thumbnails': m031,
  '033-api-tokens': m033,
  '034-two-factor': m034,
  '035-virus-scan': m035,
};

/** Every migration this version knows, oldest first: a database at the latest has run them all. */
export function migrationNames(): string[] {
  return Object.keys(steps);
}

export async function migrateToLatest(handle: DatabaseHandle): Promise<void> {
  await migrate(handle, (migrator) => migrator.migrateToLatest());
}

/** The schema as it was right after migration `name`: tests of a later migration start there. */
export async function migrateTo(handle: DatabaseHandle, name: string): Promise<void> {
  await migrate(handle, (migrator) => migrator.migrateTo(name));
}

async function migrate(handle: DatabaseHandle, run: (migrator: Migrator) => Promise<MigrationResultSet>): Promise<void> {
  const ctx: MigrationContext = {
    dialect: handle.dialect,
    id: handle.dialect === 'postgres' ? 'serial' : 'integer',
  };
  const migrations: Record<string, Migration> = Object.fromEntries(
    Object.entries(steps).map(([name, step]) => [name, { up: (db: Kysely<unknown>) => step.up(db, ctx) }]),
  );
  const migrator = new Migrator({
    db: handle.db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
  });
  const { error, results } = await run(migrator);
  const failed = results?.find((r) => r.status === 'Error');
  if (error !== undefined || failed) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
}

