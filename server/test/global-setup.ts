// Decides once per run whether the PostgreSQL pass can run, and says so plainly when it cannot.
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import type {} from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresAdminUrl: string | null;
  }
}

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

async function reachable(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const url = process.env.TEST_POSTGRES_URL ?? DEFAULT_URL;
  const failure = await reachable(url);
  if (failure === null) {
    project.provide('postgresAdminUrl', url);
    return;
  }
  if (process.env.REQUIRE_POSTGRES === '1') {
    throw new Error(`REQUIRE_POSTGRES=1 but PostgreSQL is not reachable at ${url}: ${failure}`);
  }
  console.warn(
    `\n*** PostgreSQL not reachable at ${url} (${failure}): SKIPPED the PostgreSQL pass; only SQLite was tested. ***\n`,
  );
  project.provide('postgresAdminUrl', null);
}
