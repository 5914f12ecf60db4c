// A project of 10,000 files stays fast (issue 14, item 6): each sorted page of the files table is
// read in the order of its index (migration 008), never by sorting the whole project, on both
// engines. Checked on the query plans the databases choose, not on timings.
import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILE_SORT_KEYS } from '@portal/contract';
import { openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { FilesRepository, type FileFind } from '../src/files/files.repository.js';
import { createTestDatabase, dialects, type TestDatabase } from './databases.js';

const FILES = 10_000;
const INDEX = { file: 'project_files_live_name_idx', filesize: 'project_files_live_size_idx', created_at: 'project_files_live_created_idx', updated_at: 'project_files_live_updated_idx' };

describe.each(dialects())('the files table of a 10,000-file project on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let projectId: number;
  let companyId: number;

  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrated: true });
    handle = openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
    await migrateToLatest(handle);
    const { db } = handle;
    const now = new Date().toISOString();
    companyId = (await db.insertInto('companies').values({ companyname: 'Big', created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow()).id;
    const project = (name: string) =>
      db.insertInto('projects').values({ company_id: companyId, name, valid: 1, status: 'Pendant', created_by: null, created_at: now, updated_at: now, deleted_at: null }).returning('id').executeTakeFirstOrThrow();
    projectId = (await project('Big')).id;
    const neighbour = (await project('Neighbour')).id;
    const statuses = ['pending', 'processing', 'ready', 'failed'];
    // The big project, a neighbour with as many files, and one deleted file in ten.
    for (const [target, count] of [[projectId, FILES], [neighbour, FILES]] as const) {
      for (let at = 0; at < count; at += 500) {
        const rows = Array.from({ length: Math.min(500, count - at) }, (_, k) => {
          const i = at + k;
          const time = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
          return {
            project_id: target,
            company_id: companyId,
            file: `${i % 2 ? 'Scan' : 'scan'}-${(i * 7919) % count}.zip`,
            filesize: (i * 104_729) % 1_000_003,
            sha256: '0'.repeat(64),
            storage_key: `uploads/${target}-${i}`,
            kind: 'archive',
            created_by: null,
            created_at: time,
            updated_at: new Date(Date.UTC(2026, 0, 1) + ((i * 31) % count) * 60_000).toISOString(),
            deleted_at: i % 10 === 0 ? time : null,
            processing_status: statuses[i % 4]!,
            processing_error: null,
            processing_summary: null,
          };
        });
        await db.insertInto('project_files').values(rows).execute();
      }
    }
    await handle.db.executeQuery(CompiledQuery.raw('analyze'));
  }, 120_000);
  afterAll(async () => {
    await handle.close();
    await database.drop();
  });

  async function plan(find: FileFind): Promise<string> {
    const { rows } = new FilesRepository(handle.db).findQueries(projectId, companyId, find);
    return planOf(rows.compile());
  }

  async function planOf(compiled: CompiledQuery): Promise<string> {
    const explain = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
    const result = await handle.db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(explain + compiled.sql, [...compiled.parameters]));
    return result.rows.map((r) => String(r.detail ?? r['QUERY PLAN'])).join('\n');
  }

  it.each(FILE_SORT_KEYS.flatMap((sort) => (['asc', 'desc'] as const).map((order) => [sort, order] as const)))(
    'reads a page sorted by %s %s through its index, without sorting the project',
    async (sort, order) => {
      for (const offset of [0, 5000]) {
        const text = await plan({ sort, order, offset, limit: 25 });
        expect(text).toContain(INDEX[sort]);
        expect(text).not.toMatch(dialect === 'sqlite' ? /TEMP B-TREE FOR ORDER BY/ : /\bSort\b/);
        // Each row's earlier copy (duplicate_of) is found by its content, not by reading the project.
        if (dialect === 'sqlite') expect(text).toMatch(/SEARCH same USING INDEX project_files_sha256_idx \(project_id=\? AND sha256=\?/);
      }
    },
  );

  it('reads the newest first, as without parameters, through an index too', async () => {
    const text = await plan({ order: 'desc', offset: 0, limit: 25 });
    // PostgreSQL may walk the primary key backwards instead, when the project is much of the table.
    expect(text).toMatch(dialect === 'sqlite' ? /project_files_live_newest_idx/ : /Index Scan Backward using project_files_(pkey|live_newest_idx)/);
    expect(text).not.toMatch(dialect === 'sqlite' ? /TEMP B-TREE FOR ORDER BY/ : /\bSort\b/);
  });

  // Migration 018 dropped the index on (project_id, deleted_at), which every upload wrote to: the
  // lookups by project it served take the other indexes, never a read of the whole table.
  it('counts, filters and lists a project by the indexes that remain, without reading the table', async () => {
    const repo = new FilesRepository(handle.db);
    const scan = dialect === 'sqlite' ? /SCAN project_files(?! USING)/ : /Seq Scan on project_files/;
    const { count } = repo.findQueries(projectId, companyId, { order: 'desc', offset: 0, limit: 25 });
    const { count: byStatus } = repo.findQueries(projectId, companyId, { status: ['failed'], order: 'desc', offset: 0, limit: 25 });
    // A project's every file id (what deleting it cancels): PostgreSQL rightly reads the table
    // when, as here, the project is half of it; SQLite's plan is the index's.
    const ids = handle.db.selectFrom('project_files').select('id').where('project_id', '=', projectId).compile();
    for (const compiled of dialect === 'sqlite' ? [count.compile(), byStatus.compile(), ids] : [count.compile(), byStatus.compile()]) {
      const text = await planOf(compiled);
      expect(text).not.toMatch(scan);
      expect(text).toMatch(/project_files_(live_newest|live_status|sha256)_idx/);
    }
  });

  it('answers the right page and total over the 9,000 live files of the project', async () => {
    const repo = new FilesRepository(handle.db);
    const { rows, total } = await repo.findInProject(projectId, companyId, { sort: 'filesize', order: 'desc', offset: 100, limit: 25 });
    expect(total).toBe(FILES - FILES / 10);
    const all = await repo.findInProject(projectId, companyId, { sort: 'filesize', order: 'desc', offset: 0, limit: FILES });
    expect(rows.map((r) => r.id)).toEqual(all.rows.slice(100, 125).map((r) => r.id));
    const sizes = all.rows.map((r) => Number(r.filesize));
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    const failed = await repo.findInProject(projectId, companyId, { status: ['failed'], order: 'desc', offset: 0, limit: 10 });
    const expectedFailed = Array.from({ length: FILES }, (_, i) => i).filter((i) => i % 4 === 3 && i % 10 !== 0).length;
    expect(failed.total).toBe(expectedFailed);
  });
});
