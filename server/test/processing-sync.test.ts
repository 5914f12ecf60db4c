// What processing makes durable, and when (docs/processing.md, "What is synced when"): a job that
// stores nothing new (a single DICOM file, a delivery of DICOM files: their bytes were synced as
// they arrived) must not start a filesystem sync, which on a busy disk costs more than the job;
// a job that stored extracted entries, or that takes over from an earlier run that may have died
// before its sync, syncs once before the row turns 'ready'.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../src/db/schema.js';
import { createJobRunner } from '../src/services.js';
import { dialects } from './databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from './factories.js';
import { call, login } from './http.js';
import { startTestServer, type TestServer } from './server.js';
import { createUpload, encodeMetadata } from './tus.js';
import { dicomFixture, makeArchive, upload } from './uploads.js';

describe.each(dialects())('syncs of processing on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  let scratch: string;
  /** Row status each time the storage was flushed, in order. */
  const flushes: string[] = [];
  let watched: number | undefined;

  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { jobs: false });
    company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-sync-'));
    // The real storage, observed: what the row says at each flush shows the flush came before 'ready'.
    const storage = server.services.storage;
    const flush = storage.flush.bind(storage);
    storage.flush = async () => {
      const row = watched === undefined ? undefined : await server.services.repos.files.findForProcessing(watched);
      flushes.push(row?.processing_status ?? 'none');
      await flush();
    };
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** Runs the queued jobs with a runner of its own until `fileId` is ready; answers the flushes seen. */
  async function processed(fileId: number): Promise<{ summary: unknown; flushes: string[] }> {
    flushes.length = 0;
    watched = fileId;
    const runner = await createJobRunner(server.services, server.config, server.app.log);
    runner.start();
    try {
      for (let i = 0; i < 600; i += 1) {
        const row = await server.services.repos.files.findForProcessing(fileId);
        if (row?.processing_status === 'ready') return { summary: JSON.parse(row.processing_summary ?? 'null'), flushes: [...flushes] };
        if (row?.processing_status === 'failed') throw new Error(`processing failed: ${row.processing_error}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('processing did not finish');
    } finally {
      await runner.stop();
    }
  }

  it('a single DICOM file is indexed without a sync, its entry pointing at the upload itself', async () => {
    const project = await makeProject(server.services, company);
    const answer = await upload(server.api, token, { name: 'IM1.dcm', data: dicomFixture('s01_CT_small.dcm') }, project.id);
    expect(answer.status).toBe(201);
    const id: number = answer.body.data[0].id;
    const result = await processed(id);
    expect(result.flushes).toEqual([]);
    expect(result.summary).toMatchObject({ studies: 1, series: 1, instances: 1, other: 0, skipped: 0 });
    const contents = await call(`${server.api}/study-petitions-files/${id}/contents`, { token });
    expect(contents.status).toBe(200);
    expect(JSON.stringify(contents.body)).toContain('IM1.dcm');
  });

  it('a delivery of DICOM files is processed without a sync', async () => {
    const project = await makeProject(server.services, company);
    const created = await call(`${server.api}/deliveries`, { method: 'POST', token, json: { studypetitionid: project.id, name: 'CD' } });
    const deliveryId: number = created.body.data[0].id;
    for (const [at, name] of ['s03_CT_series5N_2062.dcm', 's04_CT_series5N_2392.dcm'].entries()) {
      const data = dicomFixture(name);
      const metadata = encodeMetadata({ delivery: String(deliveryId), relativePath: `DICOM/IM${at + 1}` });
      expect((await createUpload(server.api, token, { size: data.length, body: data, metadata })).status).toBe(201);
    }
    const completed = await call(`${server.api}/deliveries/${deliveryId}/complete`, { method: 'POST', token });
    expect(completed.status).toBe(200);
    const result = await processed(completed.body.data[0].file_id);
    expect(result.flushes).toEqual([]);
    expect(result.summary).toMatchObject({ studies: 1, series: 1, instances: 2 });
  });

  it('a delivery’s files are synced once, when it is completed, before its row appears', async () => {
    const project = await makeProject(server.services, company);
    const created = await call(`${server.api}/deliveries`, { method: 'POST', token, json: { studypetitionid: project.id, name: 'CD' } });
    const deliveryId: number = created.body.data[0].id;
    const listed = async () => (await call(`${server.api}/study-petitions-files?study_petition_id=${project.id}`, { token })).body.data.length as number;
    const storage = server.services.storage;
    const flush = storage.flush.bind(storage);
    const rowsAtFlush: number[] = [];
    storage.flush = async () => {
      rowsAtFlush.push(await listed());
      await flush();
    };
    try {
      for (const [at, name] of ['s03_CT_series5N_2062.dcm', 's04_CT_series5N_2392.dcm'].entries()) {
        const data = dicomFixture(name);
        const metadata = encodeMetadata({ delivery: String(deliveryId), relativePath: `DICOM/IM${at + 1}` });
        expect((await createUpload(server.api, token, { size: data.length, body: data, metadata })).status).toBe(201);
      }
      // Arriving files are not synced one by one.
      expect(rowsAtFlush).toEqual([]);
      const completed = await call(`${server.api}/deliveries/${deliveryId}/complete`, { method: 'POST', token });
      expect(completed.status).toBe(200);
      expect(rowsAtFlush).toEqual([0]);
      expect(await listed()).toBe(1);
    } finally {
      storage.flush = flush;
    }
  });

  it('a zip whose entries are extracted and stored syncs once, before the row turns ready', async () => {
    const project = await makeProject(server.services, company);
    const members = { 'IM1.dcm': dicomFixture('s03_CT_series5N_2062.dcm'), 'IM2.dcm': dicomFixture('s04_CT_series5N_2392.dcm') };
    const zip = makeArchive(scratch, members, 'bsdtar --format zip --options zip:compression=deflate -cf deflated.zip IM1.dcm IM2.dcm', 'deflated.zip');
    const answer = await upload(server.api, token, { name: 'deflated.zip', data: zip }, project.id);
    expect(answer.status).toBe(201);
    const result = await processed(answer.body.data[0].id);
    expect(result.flushes).toEqual(['processing']);
    expect(result.summary).toMatchObject({ instances: 2 });
  });

  it('a job that takes over from an earlier run that recorded entries syncs, though it stores nothing itself', async () => {
    const project = await makeProject(server.services, company);
    const answer = await upload(server.api, token, { name: 'IM1.dcm', data: dicomFixture('s01_CT_small.dcm') }, project.id);
    const id: number = answer.body.data[0].id;
    const row = (await server.services.repos.files.findForProcessing(id))!;
    // As a run that died after recording its entry, before its sync, leaves it: the job claimed once, the entry there.
    await server.services.repos.entries.insertMany([
      { file_id: id, company_id: row.company_id, seq: 1, path: 'IM1.dcm', size: Number(row.filesize), sha256: row.sha256, kind: 'dicom', reason: null, storage_key: row.storage_key, storage_offset: null },
    ]);
    await server.services.handle.db.updateTable('jobs').set({ attempts: 1 }).where('subject', '=', `files/${id}`).execute();
    const result = await processed(id);
    expect(result.flushes).toEqual(['processing']);
  });
});
