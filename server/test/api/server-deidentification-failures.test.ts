// De-identification on the server when processing does not end well (issue 33, item 4: nothing
// identified stays): a job that gives up after its last attempt deletes what arrived identified and
// says so in words, for a single upload and for a delivery; a delivery job that died after 'ready',
// between deleting the objects as they arrived and forgetting their rows, finishes on its rerun
// instead of failing on the objects it already deleted.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pseudonymOf } from '@portal/deid';
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { givenUpMessage } from '../../src/processing/given-up.js';
import { processDelivery, processDeliveryJob } from '../../src/processing/process-delivery.job.js';
import { processUploadJob } from '../../src/processing/process-upload.job.js';
import { dialects } from '../databases.js';
import { basicProject as basicProjectOf, plantIdentity, tarBundle } from '../deidentification-fixtures.js';
import { makeCompany, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { everyRowAsText, filesUnder } from '../leak-search.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, encodeMetadata } from '../tus.js';
import { upload, waitProcessed as waitProcessedIn } from '../uploads.js';

const PLANTED = { name: 'GIVENUP^PLANTQZ', id: 'GIVENUPID5150', nestedId: 'GIVENUPNEST77', privateCreator: 'GUCREATOR', privateValue: 'GUPRIVATE6021' };


describe.each(dialects())('de-identification when processing fails, %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  let admin: string;
  let scratch: string;
  let planted: Buffer;

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-deid-failures-'));
    server = await startTestServer(dialect, {}, { jobs: true });
    company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    admin = await login(server.api, (await makeUser(server.services, { role: ROLES.SysAdmin })).username, PASSWORD);
    planted = plantIdentity(scratch, 's01_CT_small.dcm', PLANTED);
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const deps = () => ({
    files: server.services.repos.files,
    members: server.services.repos.deliveries,
    entries: server.services.repos.entries,
    storage: server.services.storage,
    limits: {},
    policies: server.services.deidentification,
  });
  const rowOf = (fileId: number) => server.services.handle.db.selectFrom('project_files').selectAll().where('id', '=', fileId).executeTakeFirstOrThrow();
  const membersOf = (delivery: number) => server.services.handle.db.selectFrom('delivery_files').selectAll().where('delivery_id', '=', delivery).execute();
  const processingOf = async (projectId: number, fileId: number) => {
    const list = await call(`${server.api}/study-petitions-files?study_petition_id=${projectId}`, { token });
    return (list.body.data as { id: number; processing: { status: string; error: string | null } }[]).find((f) => f.id === fileId)!.processing;
  };
  const removeFile = async (fileId: number) => expect((await call(`${server.api}/study-petitions-files-delete/${fileId}`, { method: 'PUT', token })).status).toBe(200);

  /** No planted value in any file under DATA_DIR (objects, work area, database and journal). */
  function expectNothingStored(): void {
    for (const file of filesUnder(server.config.dataDir)) {
      const bytes = fs.readFileSync(file);
      for (const text of Object.values(PLANTED)) expect(bytes.includes(Buffer.from(text)), `${text} in ${file}`).toBe(false);
    }
  }

  /** A delivery of the planted file sent alone and in a tar bundle with a note, completed while no job runs. */
  async function completedDelivery(projectId: number): Promise<{ delivery: number; fileId: number }> {
    const delivery: number = (await call(`${server.api}/deliveries`, { method: 'POST', token, json: { studypetitionid: projectId, name: 'CD export' } })).body.data[0].id;
    const alone = await createUpload(server.api, token, { size: planted.length, body: planted, metadata: encodeMetadata({ filename: 'IM1', delivery: String(delivery), relativePath: 'DICOM/IM1' }) });
    expect(alone.status).toBe(201);
    const bundle = tarBundle({ 'DICOM/IM2': planted, 'NOTE.TXT': Buffer.from(`For ${PLANTED.name}\n`) });
    const bundled = await createUpload(server.api, token, { size: bundle.length, body: bundle, metadata: encodeMetadata({ filename: 'bundle-1.tar', delivery: String(delivery), bundle: 'tar' }) });
    expect(bundled.status).toBe(201);
    const completed = await call(`${server.api}/deliveries/${delivery}/complete`, { method: 'POST', token });
    expect(completed.status).toBe(200);
    return { delivery, fileId: completed.body.data[0].file_id };
  }

  it('a single upload whose job gives up: the identified original is deleted and the row says so', async () => {
    const { id: projectId } = await basicProjectOf(server, company, { admin, user: token });
    await server.runner!.stop();
    try {
      const sent = await upload(server.api, token, { name: 'planted.dcm', data: planted }, projectId);
      const fileId: number = sent.body.data[0].id;
      const { storage_key: key } = await rowOf(fileId);
      expect(await server.services.storage.stat(key)).not.toBeNull();
      await processUploadJob(deps()).onGiveUp({ fileId, companyId: company.id }, { message: 'storage failed', attempts: 3 });
      expect(await server.services.storage.stat(key)).toBeNull();
      expect(await processingOf(projectId, fileId)).toMatchObject({ status: 'failed', error: givenUpMessage(3, true) });
      expect(givenUpMessage(3, true)).toContain('what arrived was deleted from the server');
      expectNothingStored();
      await removeFile(fileId);
    } finally {
      server.runner!.start();
    }
  });

  it('a delivery whose job gives up: every object as it arrived is deleted with its rows, and the row says so', async () => {
    const { id: projectId } = await basicProjectOf(server, company, { admin, user: token });
    await server.runner!.stop();
    try {
      const { delivery, fileId } = await completedDelivery(projectId);
      const keys = (await membersOf(delivery)).map((m) => m.storage_key);
      expect(keys.length).toBeGreaterThan(0);
      await processDeliveryJob(deps()).onGiveUp({ fileId, companyId: company.id }, { message: 'storage failed', attempts: 4 });
      for (const key of keys) expect(await server.services.storage.stat(key), key).toBeNull();
      expect(await membersOf(delivery)).toEqual([]);
      expect(await processingOf(projectId, fileId)).toMatchObject({ status: 'failed', error: givenUpMessage(4, true) });
      expectNothingStored();
      const rows = await everyRowAsText(server.services.handle.db, dialect);
      for (const text of Object.values(PLANTED)) expect(rows.includes(text), text).toBe(false);
      await removeFile(fileId);
    } finally {
      server.runner!.start();
    }
  });

  it('a delivery job rerun after it died between deleting the objects and forgetting their rows ends ready, as the first run left it', async () => {
    const { id: projectId, key } = await basicProjectOf(server, company, { admin, user: token });
    const { delivery, fileId } = await completedDelivery(projectId);
    // The member rows as they were before the first run forgot them.
    const before = await membersOf(delivery);
    const bundles = await server.services.handle.db.selectFrom('delivery_bundles').selectAll().where('delivery_id', '=', delivery).execute();
    const ready = await waitProcessedIn(server.api, token, projectId, fileId);
    expect(ready.processing.status).toBe('ready');
    for (let i = 0; i < 100 && (await membersOf(delivery)).length > 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    const contents = async () => (await call(`${server.api}/study-petitions-files/${fileId}/contents?limit=100`, { token })).body.data.entries;
    const entriesBefore = await contents();
    // As the crash left it: the objects deleted, their rows still there.
    await server.services.handle.db.insertInto('delivery_files').values(before).execute();
    if (bundles.length > 0) await server.services.handle.db.insertInto('delivery_bundles').values(bundles).execute();
    const workDir = fs.mkdtempSync(path.join(scratch, 'job-'));
    await processDelivery(deps(), { fileId, companyId: company.id }, { signal: new AbortController().signal, workDir: () => Promise.resolve(workDir) });
    expect(await processingOf(projectId, fileId)).toMatchObject({ status: 'ready' });
    expect(await membersOf(delivery)).toEqual([]);
    expect(await contents()).toEqual(entriesBefore);
    const im1 = (entriesBefore as { path: string; dicom: { patient_id: string } | null }[]).find((e) => e.path === 'DICOM/IM1');
    expect(im1?.dicom?.patient_id).toBe(pseudonymOf(PLANTED.id, key));
    expectNothingStored();
  });
});
