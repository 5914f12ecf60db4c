// A file row as processing leaves it, for tests of what follows processing (review decisions).
import type { TestServer } from './server.js';

/** A processed upload's row, as review/ would find one (no job: nothing else happens to it). */
export async function insertReadyFile(server: TestServer, projectId: number, companyId: number, name: string): Promise<number> {
  const at = new Date().toISOString();
  const row = await server.services.handle.db
    .insertInto('project_files')
    .values({
      project_id: projectId,
      company_id: companyId,
      file: name,
      filesize: 10,
      sha256: '0'.repeat(64),
      storage_key: `uploads/${name}`,
      kind: 'dicom',
      created_by: null,
      created_at: at,
      updated_at: at,
      deleted_at: null,
      processing_status: 'ready',
      processing_error: null,
      processing_summary: null,
      purged_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
