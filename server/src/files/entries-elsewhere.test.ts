// A summary's `in_project` counts a file's instances that another live file of the same project
// holds. A file of few instances is asked by key, one of many by one joined query: both must give
// the same answer, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle, type Db } from '../db/database.js';
import { createTestDatabase, dialects, type TestDatabase } from '../../test/databases.js';
import { EntriesRepository } from './entries.repository.js';

describe.each(dialects())('instances found elsewhere in the project on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let entries: EntriesRepository;
  let companyId: number;
  let otherProjectId: number;
  let fileNo = 0;
  let newProject: (name?: string) => Promise<number>;
  const now = new Date().toISOString();

  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrated: true });
    handle = openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
    const { db } = handle;
    companyId = (await db.insertInto('companies').values({ companyname: 'C', created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow()).id;
    newProject = async (name = 'P') =>
      (await db.insertInto('projects').values({ company_id: companyId, name, valid: 1, status: 'Pendant', created_by: null, created_at: now, updated_at: now, deleted_at: null }).returning('id').executeTakeFirstOrThrow()).id;
    otherProjectId = await newProject('Other');
    entries = new EntriesRepository(db);
  }, 60_000);
  afterAll(async () => {
    await handle.close();
    await database.drop();
  });

  /** A file of `project` whose entries are DICOM instances with these SOP Instance UIDs (null: not DICOM). */
  async function file(project: number, uids: (string | null)[], opts: { deleted?: boolean } = {}, db: Db = handle.db): Promise<number> {
    fileNo += 1;
    const { id } = await db
      .insertInto('project_files')
      .values({
        project_id: project,
        company_id: companyId,
        file: `f${fileNo}.zip`,
        filesize: 1,
        sha256: String(fileNo).padStart(64, '0'),
        storage_key: `uploads/${fileNo}`,
        kind: 'archive',
        created_by: null,
        created_at: now,
        updated_at: now,
        deleted_at: opts.deleted ? now : null,
        processing_status: 'ready',
        processing_error: null,
        processing_summary: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await new EntriesRepository(db).insertMany(
      uids.map((uid, i) => ({
        file_id: id,
        company_id: companyId,
        seq: i + 1,
        path: `e${i}`,
        size: 1,
        sha256: null,
        kind: uid === null ? 'other' : 'dicom',
        reason: null,
        storage_key: null,
        storage_offset: null,
        sop_instance_uid: uid,
        sop_class_uid: null,
        study_instance_uid: null,
        series_instance_uid: null,
        modality: null,
        study_date: null,
        study_description: null,
        series_description: null,
        transfer_syntax_uid: null,
        rows: null,
        columns: null,
        number_of_frames: null,
        patient_name: null,
        patient_id: null,
      })),
      db === handle.db ? undefined : db,
    );
    return id;
  }

  const uids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}.${i + 1}`);

  it.each([1, 5, 40])('counts each instance another live file of the project holds, once, in a file of %i instances', async (size) => {
    const project = await newProject();
    // Held elsewhere: 1.1 by two files (counted once), 1.2 by a deleted file only, 1.3 in another project only.
    await file(project, ['1.1', '1.1', '1.4']);
    await file(project, ['1.1']);
    await file(project, ['1.2'], { deleted: true });
    await file(otherProjectId, ['1.3']);
    const mine = ['1.1', '1.2', '1.3', '1.4', ...uids(`2.${size}`, size)].slice(0, size);
    const id = await file(project, [...mine, mine[0]!, null]);
    expect(await entries.countInstancesElsewhere(id, project)).toBe(mine.filter((uid) => uid === '1.1' || uid === '1.4').length);
  });

  it('counts nothing for a file whose instances nobody else holds, or that has none', async () => {
    const project = await newProject();
    await file(project, ['9.1', ...uids('8', 30)], { deleted: true });
    expect(await entries.countInstancesElsewhere(await file(project, ['9.1']), project)).toBe(0);
    expect(await entries.countInstancesElsewhere(await file(project, uids('8', 30)), project)).toBe(0);
    expect(await entries.countInstancesElsewhere(await file(project, [null, null]), project)).toBe(0);
  });

  it('sees the rows of the transaction it is given (the job counts before its commit)', async () => {
    const project = await newProject();
    await file(project, ['7.1']);
    await handle.db.transaction().execute(async (trx) => {
      const id = await file(project, ['7.1', '7.2'], {}, trx);
      expect(await entries.countInstancesElsewhere(id, project, trx)).toBe(1);
    });
  });
});
