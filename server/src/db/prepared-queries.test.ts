// Prepared queries run on SQLite's connection itself, past Kysely's executor: they must keep the
// isolation Kysely gave them, on both engines. One outside a transaction never joins a transaction
// another caller holds open (nor sees its writes), and one given a transaction is part of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from './database.js';
import { PreparedQueries } from './prepared-queries.js';
import { createTestDatabase, dialects, type TestDatabase } from '../../test/databases.js';

describe.each(dialects())('prepared queries on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let prepared: PreparedQueries;
  const now = new Date().toISOString();

  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrated: true });
    handle = openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
    prepared = new PreparedQueries(handle.db);
  }, 60_000);
  afterAll(async () => {
    await handle.close();
    await database.drop();
  });

  const insertCompany = (name: string, on = handle.db) =>
    prepared.run('insertCompany', [name, now], ([companyname, at]) => handle.db.insertInto('companies').values({ companyname: companyname!, created_at: at!, updated_at: at! }), on);
  const companiesNamed = async (name: string) =>
    (await prepared.rows<{ id: number }>('companyByName', [name], ([companyname]) => handle.db.selectFrom('companies').select('id').where('companyname', '=', companyname!))).length;

  it('keeps a write made outside a transaction when another caller rolls its transaction back, and never sees that transaction\'s rows', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const insertedInside = new Promise<void>((resolve) => (inserted = resolve));
    const rolledBack = handle.db
      .transaction()
      .execute(async (trx) => {
        await insertCompany('inside', trx);
        inserted();
        await held;
        throw new Error('roll back');
      })
      .catch((err: unknown) => err);
    await insertedInside;
    // Started while the transaction is open: neither may become part of it.
    const outsideWrite = insertCompany('outside');
    const seenInside = companiesNamed('inside');
    release();
    expect(await rolledBack).toBeInstanceOf(Error);
    expect(await outsideWrite).toBe(1);
    expect(await seenInside).toBe(0);
    expect(await companiesNamed('outside')).toBe(1);
    expect(await companiesNamed('inside')).toBe(0);
  });

  it('makes a statement given a transaction part of it: gone when it rolls back, kept when it commits', async () => {
    await handle.db
      .transaction()
      .execute(async (trx) => {
        expect(await insertCompany('rolled back', trx)).toBe(1);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await handle.db.transaction().execute(async (trx) => {
      await insertCompany('committed', trx);
    });
    expect(await companiesNamed('rolled back')).toBe(0);
    expect(await companiesNamed('committed')).toBe(1);
  });
});
