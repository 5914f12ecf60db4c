// Processing jobs that do not end well (issue 33, item 4; issue 32, item 4): a delivery job that died
// before its end resumes; in a de-identifying project a delivery job
// killed after it deleted the files as they arrived and before it forgot their rows ends as it
// would have without the kill; and a job that gives up (attempts exhausted) keeps nothing of what
// arrived: the upload, the archive, the delivery's files are deleted, the row fails with the reason
// in words, and no planted value is left under DATA_DIR or in the database.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { processDelivery, type ProcessDeliveryDeps } from '../../src/processing/process-delivery.job.js';
import { processUploadJob } from '../../src/processing/process-upload.job.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, encodeMetadata } from '../tus.js';
import { dicomFixture, makeArchive, storedFiles, upload, waitProcessed as waitProcessedIn } from '../uploads.js';
import { basicProject as basicProjectOf, plantIdentity, tarBundle } from '../deidentification-fixtures.js';
import { everyRowAsText, filesUnder } from '../leak-search.js';

const PLANTED = { name: 'PLANTED^GIVENUPQ', id: 'PLANTEDGIV3141', nestedId: 'NESTEDGIV5926', privateCreator: 'PLANTGIVCREATOR', privateValue: 'PRIVGIV5358' };


describe.each(dialects())('de-identifying jobs that crash or give up, %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  let admin: string;
  let scratch: string;
  let planted: Buffer[];

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-deid-give-up-'));
    server = await startTestServer(dialect, { JOB_RETRY_BASE_SECONDS: '0', JOB_MAX_ATTEMPTS: '1' }, { jobs: true });
    company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    admin = await login(server.api, (await makeUser(server.services, { role: ROLES.SysAdmin })).username, PASSWORD);
    planted = ['s01_CT_small.dcm', 's04_CT_series5N_2392.dcm', 's06_CT_series5N_3023.dcm'].map((f) => plantIdentity(scratch, f, PLANTED));
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const deps = (): ProcessDeliveryDeps => ({
    files: server.services.repos.files,
    members: server.services.repos.deliveries,
    entries: server.services.repos.entries,
    storage: server.services.storage,
    limits: {},
    policies: server.services.deidentification,
  });
  const context = () => ({ signal: new AbortController().signal, workDir: () => Promise.resolve(fs.mkdtempSync(path.join(scratch, 'job-'))) });
  const rowOf = (fileId: number) => server.services.handle.db.selectFrom('project_files').selectAll().where('id', '=', fileId).executeTakeFirstOrThrow();
  const membersOf = (delivery: number) => server.services.handle.db.selectFrom('delivery_files').select(['relative_path', 'storage_key']).where('delivery_id', '=', delivery).execute();
  const contentsOf = async (fileId: number) => JSON.stringify((await call(`${server.api}/study-petitions-files/${fileId}/contents?limit=100`, { token })).body.data.entries);

  /** A delivery of one file sent alone and a bundle of two, completed; answers its ids and the keys its files arrived in. */
  async function completedDelivery(projectId: number, files: Buffer[] = planted): Promise<{ delivery: number; fileId: number; keys: string[] }> {
    const delivery: number = (await call(`${server.api}/deliveries`, { method: 'POST', token, json: { studypetitionid: projectId, name: 'CD export' } })).body.data[0].id;
    const alone = files[0]!;
    const sentAlone = await createUpload(server.api, token, { size: alone.length, body: alone, metadata: encodeMetadata({ filename: 'IM1', delivery: String(delivery), relativePath: 'DICOM/IM1' }) });
    expect(sentAlone.status).toBe(201);
    const bundle = tarBundle({ 'DICOM/IM2': files[1]!, 'DICOM/IM3': files[2]!, 'README.TXT': Buffer.from(files === planted ? `Patient ${PLANTED.name}\n` : 'Referral letter\n') });
    const sentBundle = await createUpload(server.api, token, { size: bundle.length, body: bundle, metadata: encodeMetadata({ filename: 'bundle-1.tar', delivery: String(delivery), bundle: 'tar' }) });
    expect(sentBundle.status).toBe(201);
    const keys = [...new Set((await membersOf(delivery)).map((m) => m.storage_key))];
    const completed = await call(`${server.api}/deliveries/${delivery}/complete`, { method: 'POST', token });
    return { delivery, fileId: completed.body.data[0].file_id, keys };
  }

  it('finishes a delivery whose job was killed after deleting the files as they arrived and before forgetting their rows', async () => {
    const { id: projectId } = await basicProjectOf(server, company, { admin, user: token });
    await server.runner!.stop();
    try {
      const { delivery, fileId, keys } = await completedDelivery(projectId);
      // The first run dies at the step that forgets the rows: its objects are deleted, the rows still name them.
      const killed = { ...deps(), members: { membersOfFile: (id: number) => server.services.repos.deliveries.membersOfFile(id), forgetObjects: () => Promise.reject(new Error('killed')) } };
      await expect(processDelivery(killed, { fileId, companyId: company.id }, context())).rejects.toThrow('killed');
      const afterCrash = await contentsOf(fileId);
      expect((await membersOf(delivery)).length).toBe(4);
      await processDelivery(deps(), { fileId, companyId: company.id }, context());
      const row = await rowOf(fileId);
      expect(row.processing_status).toBe('ready');
      expect(await contentsOf(fileId)).toBe(afterCrash);
      expect(await membersOf(delivery)).toEqual([]);
      const stored = new Set(storedFiles(server.config.dataDir));
      for (const k of keys) expect(stored.has(k)).toBe(false);
    } finally {
      server.runner!.start();
    }
  });

  it('resumes a delivery job that died before its end: the entries an earlier run recorded are kept, not recorded again', async () => {
    const project = await makeProject(server.services, company);
    await server.runner!.stop();
    try {
      // Files without planted identity: this project keeps what is sent.
      const { fileId } = await completedDelivery(project.id, ['s01_CT_small.dcm', 's04_CT_series5N_2392.dcm', 's06_CT_series5N_3023.dcm'].map(dicomFixture));
      await processDelivery(deps(), { fileId, companyId: company.id }, context());
      const entryIds = () => server.services.handle.db.selectFrom('file_entries').select(['id', 'seq', 'path']).where('file_id', '=', fileId).orderBy('seq').execute();
      const first = await entryIds();
      expect(first.map((e) => e.path)).toEqual(['DICOM/IM1', 'DICOM/IM2', 'DICOM/IM3', 'README.TXT']);
      const before = await contentsOf(fileId);
      // As a crash before the job's end leaves it: entries recorded, the row not yet 'ready'.
      await server.services.repos.files.setProcessing(fileId, { status: 'processing' });
      await processDelivery(deps(), { fileId, companyId: company.id }, { ...context(), attempt: 2 });
      expect(await entryIds()).toEqual(first);
      expect((await rowOf(fileId)).processing_status).toBe('ready');
      expect(await contentsOf(fileId)).toBe(before);
    } finally {
      server.runner!.start();
    }
  });

  it('deletes an upload and an archive sent whole when their jobs give up, and says so on the row', async () => {
    const { id: projectId } = await basicProjectOf(server, company, { admin, user: token });
    await server.runner!.stop();
    try {
      const single = await upload(server.api, token, { name: 'planted.dcm', data: planted[0]! }, projectId);
      const zip = makeArchive(scratch, { 'DICOM/IM1': planted[1]!, 'notes.txt': Buffer.from(`${PLANTED.name}\n`) }, 'bsdtar -c --format zip -f study.zip DICOM notes.txt', 'study.zip');
      const archive = await upload(server.api, token, { name: 'study.zip', data: zip }, projectId);
      const job = processUploadJob({ files: server.services.repos.files, entries: server.services.repos.entries, storage: server.services.storage, limits: {}, policies: server.services.deidentification });
      for (const sent of [single, archive]) {
        const fileId: number = sent.body.data[0].id;
        const { storage_key } = await rowOf(fileId);
        await job.onGiveUp({ fileId, companyId: company.id }, { message: 'storage unreachable', attempts: 3 });
        const row = await rowOf(fileId);
        expect(row.processing_status).toBe('failed');
        expect(row.processing_error).toMatch(/failed after 3 attempts.*deleted from the server.*patient identity/s);
        expect(storedFiles(server.config.dataDir)).not.toContain(storage_key);
      }
    } finally {
      server.runner!.start();
    }
  });

  it('deletes a delivery’s files when its job gives up (one of them could not be read)', async () => {
    const { id: projectId } = await basicProjectOf(server, company, { admin, user: token });
    await server.runner!.stop();
    const broken = await completedDelivery(projectId);
    const alone = (await membersOf(broken.delivery)).find((m) => m.relative_path === 'DICOM/IM1')!;
    await server.services.storage.delete(alone.storage_key);
    server.runner!.start();
    const failed = await waitProcessedIn(server.api, token, projectId, broken.fileId);
    expect(failed.processing.status).toBe('failed');
    expect(failed.processing.error).toMatch(/failed after 1 attempts.*deleted from the server.*patient identity/s);
    expect(await membersOf(broken.delivery)).toEqual([]);
    const stored = new Set(storedFiles(server.config.dataDir));
    for (const k of broken.keys) expect(stored.has(k)).toBe(false);
  });

  it('leaves no planted value anywhere under DATA_DIR or in the database', async () => {
    const texts = Object.values(PLANTED);
    for (const file of filesUnder(server.config.dataDir)) {
      const bytes = fs.readFileSync(file);
      for (const t of texts) expect(bytes.includes(Buffer.from(t)), `${t} in ${file}`).toBe(false);
    }
    const rows = await everyRowAsText(server.services.handle.db, dialect);
    for (const t of texts) expect(rows.includes(t), `${t} in the database`).toBe(false);
  });
});
