// Virus scanning (issue 37 item 4) against a real clamd started here with one test signature: a
// clean upload, an infected file, an infected entry of a zip inside a zip, a scanner that is down
// (the upload waits, then is scanned once clamd is back), and no scanner at all ('not scanned').
// Infected bytes are never served: download, entry download, download links, DICOMweb retrieval.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { SCANNER_GAVE_UP } from '../../src/processing/virus-scan.js';
import { prepareTestClamd, TEST_SIGNATURE, TEST_VIRUS_MARKER, type TestClamd } from '../clamd.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, encodeMetadata } from '../tus.js';
import { dicomFixture, download, listFiles, makeArchive, thumbnailsDrawn, upload, waitProcessed } from '../uploads.js';

const SIGNATURE = `${TEST_SIGNATURE}.UNOFFICIAL`;
const INFECTED_MESSAGE = `the virus scan found it infected (${SIGNATURE})`;
/** A real DICOM file carrying the test signature's bytes after its data set (its header still reads). */
const infectedDicom = () => Buffer.concat([dicomFixture('s01_CT_small.dcm'), Buffer.from(TEST_VIRUS_MARKER)]);

describe.each(dialects())('virus scanning with clamd, %s', (dialect) => {
  let clamd: TestClamd;
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  let projectId: number;
  let scratch: string;

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-scan-'));
    // Not started yet: the first test finds the scanner down.
    clamd = prepareTestClamd();
    server = await startTestServer(dialect, { CLAMD_SOCKET: clamd.socket, CLAMD_TIMEOUT_SECONDS: '30', JOB_RETRY_BASE_SECONDS: '1', JOB_MAX_ATTEMPTS: '20' }, { jobs: true });
    company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    projectId = (await makeProject(server.services, company)).id;
  });
  afterAll(async () => {
    await server?.close();
    await clamd?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const rowOf = async (fileId: number) => (await listFiles(server.api, token, projectId)).body.data.find((f: { id: number }) => f.id === fileId);
  const entriesOf = async (fileId: number) => (await call(`${server.api}/study-petitions-files/${fileId}/contents?limit=100`, { token })).body.data.entries as { id: number; path: string; scan: unknown; dicom: { study_instance_uid: string; series_instance_uid: string; sop_instance_uid: string } | null }[];
  const wado = (study: string, series: string, sop: string) =>
    fetch(`${server.api}/study-petitions/${projectId}/dicomweb/studies/${study}/series/${series}/instances/${sop}`, {
      headers: { authorization: `Bearer ${token}`, accept: 'multipart/related; type="application/dicom"; transfer-syntax=*' },
    });
  const thumbnailsOf = (fileId: number) => server.services.handle.db.selectFrom('series_thumbnails').select('id').where('file_id', '=', fileId).execute();
  const jobAttempts = async (fileId: number) =>
    (await server.services.handle.db.selectFrom('jobs').select('attempts').where('name', '=', 'process-upload').where('subject', '=', `files/${fileId}`).executeTakeFirst())?.attempts ?? 0;

  it('keeps an upload waiting for the virus scan while clamd is down, and scans it once clamd is back', async () => {
    const sent = await upload(server.api, token, { name: 'clean.dcm', data: dicomFixture('s10_MR_small_implicit.dcm') }, projectId);
    expect(sent.status).toBe(201);
    const fileId: number = sent.body.data[0].id;
    for (let i = 0; i < 200 && (await jobAttempts(fileId)) < 2; i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(await jobAttempts(fileId)).toBeGreaterThanOrEqual(2);
    const waiting = await rowOf(fileId);
    expect(waiting.scan).toEqual({ status: 'waiting', signature: null });
    expect(waiting.processing.status).not.toBe('ready');
    await clamd.start();
    const row = await waitProcessed(server.api, token, projectId, fileId);
    expect(row.processing.status).toBe('ready');
    expect(row.scan).toEqual({ status: 'clean', signature: null });
    expect(row.processing.summary.infected).toBe(0);
    expect((await entriesOf(fileId))[0]!.scan).toEqual({ status: 'clean', signature: null });
    expect((await download(server.api, token, fileId)).status).toBe(200);
    const { study_instance_uid: study, series_instance_uid: series, sop_instance_uid: sop } = (await entriesOf(fileId))[0]!.dicom!;
    expect((await wado(study, series, sop)).status).toBe(200);
    await thumbnailsDrawn(server.services.handle.db);
    expect(await thumbnailsOf(fileId)).toHaveLength(1);
  });

  it('marks an infected file with the signature, counts it, audits it and serves none of it', async () => {
    const sent = await upload(server.api, token, { name: 'infected.dcm', data: infectedDicom() }, projectId);
    const fileId: number = sent.body.data[0].id;
    const row = await waitProcessed(server.api, token, projectId, fileId);
    expect(row.processing.status).toBe('ready');
    expect(row.scan).toEqual({ status: 'infected', signature: SIGNATURE });
    expect(row.processing.summary.infected).toBe(1);
    const [entry] = await entriesOf(fileId);
    expect(entry!.scan).toEqual({ status: 'infected', signature: SIGNATURE });

    const refused = await download(server.api, token, fileId);
    expect(refused.status).toBe(409);
    expect(JSON.parse(refused.bytes.toString()).message).toContain(INFECTED_MESSAGE);
    const entryRefused = await call(`${server.api}/study-petitions-files/${fileId}/contents/${entry!.id}/download`, { token });
    expect(entryRefused.status).toBe(409);
    const link = await call(`${server.api}/download-links`, { token, json: { file_id: fileId } });
    expect(link.status).toBe(409);
    expect(link.body.message).toContain(INFECTED_MESSAGE);
    const { study_instance_uid: study, series_instance_uid: series, sop_instance_uid: sop } = entry!.dicom!;
    expect((await wado(study, series, sop)).status).toBe(404);
    // Never handed to the thumbnail renderer's decoders either.
    await thumbnailsDrawn(server.services.handle.db);
    expect(await thumbnailsOf(fileId)).toEqual([]);

    const audited = await server.services.handle.db.selectFrom('audit_log').selectAll().where('action', '=', 'file.infected').where('object_id', '=', String(fileId)).execute();
    expect(audited).toHaveLength(1);
    expect(JSON.parse(audited[0]!.details!)).toMatchObject({ file: 'infected.dcm', signature: SIGNATURE, infected_entries: 1 });
  });

  it('finds an infected entry inside a zip inside a zip, and still serves the clean entries', async () => {
    const inner = makeArchive(scratch, { 'virus.txt': Buffer.from(`notes ${TEST_VIRUS_MARKER} end`), 'IM1.dcm': dicomFixture('s01_CT_small.dcm') }, 'bsdtar --format zip -cf inner.zip *', 'inner.zip');
    const outer = makeArchive(scratch, { 'inner.zip': inner, 'IM2.dcm': dicomFixture('s04_CT_series5N_2392.dcm') }, 'bsdtar --format zip -cf outer.zip *', 'outer.zip');
    const sent = await upload(server.api, token, { name: 'outer.zip', data: outer }, projectId);
    const fileId: number = sent.body.data[0].id;
    const row = await waitProcessed(server.api, token, projectId, fileId);
    expect(row.scan).toEqual({ status: 'infected', signature: SIGNATURE });
    expect(row.processing.summary.infected).toBe(1);
    const entries = await entriesOf(fileId);
    const byPath = Object.fromEntries(entries.map((e) => [e.path, e]));
    expect(byPath['inner.zip/virus.txt']!.scan).toEqual({ status: 'infected', signature: SIGNATURE });
    expect(byPath['inner.zip/IM1.dcm']!.scan).toEqual({ status: 'clean', signature: null });
    expect(byPath['IM2.dcm']!.scan).toEqual({ status: 'clean', signature: null });
    expect((await download(server.api, token, fileId)).status).toBe(409);
    const infectedEntry = await call(`${server.api}/study-petitions-files/${fileId}/contents/${byPath['inner.zip/virus.txt']!.id}/download`, { token });
    expect(infectedEntry.status).toBe(409);
    expect(infectedEntry.body.message).toContain(INFECTED_MESSAGE);
    const cleanEntry = await fetch(`${server.api}/study-petitions-files/${fileId}/contents/${byPath['IM2.dcm']!.id}/download`, { headers: { authorization: `Bearer ${token}` } });
    expect(cleanEntry.status).toBe(200);
    expect(Buffer.from(await cleanEntry.arrayBuffer()).equals(dicomFixture('s04_CT_series5N_2392.dcm'))).toBe(true);
  });

  it("refuses a delivery's zip when one of its files is infected, and says which file it is", async () => {
    const delivery: number = (await call(`${server.api}/deliveries`, { method: 'POST', token, json: { studypetitionid: projectId, name: 'CD export' } })).body.data[0].id;
    const send = async (relativePath: string, body: Buffer) => {
      const sent = await createUpload(server.api, token, { size: body.length, body, metadata: encodeMetadata({ filename: path.basename(relativePath), delivery: String(delivery), relativePath }) });
      expect(sent.status).toBe(201);
    };
    await send('DICOM/IM1', dicomFixture('s06_CT_series5N_3023.dcm'));
    await send('DICOM/IM2', infectedDicom());
    const fileId: number = (await call(`${server.api}/deliveries/${delivery}/complete`, { method: 'POST', token })).body.data[0].file_id;
    const row = await waitProcessed(server.api, token, projectId, fileId);
    expect(row.scan).toEqual({ status: 'infected', signature: SIGNATURE });
    expect(row.processing.summary.infected).toBe(1);
    const byPath = Object.fromEntries((await entriesOf(fileId)).map((e) => [e.path, e.scan]));
    expect(byPath).toEqual({ 'DICOM/IM1': { status: 'clean', signature: null }, 'DICOM/IM2': { status: 'infected', signature: SIGNATURE } });
    const zip = await download(server.api, token, fileId);
    expect(zip.status).toBe(409);
    expect(JSON.parse(zip.bytes.toString()).message).toContain(INFECTED_MESSAGE);
  });
});

describe.each(dialects())('no virus scanner configured, %s', (dialect) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { jobs: true });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("says 'not scanned' for the file and its entries, never 'clean', and serves it", async () => {
    const company = await makeCompany(server.services);
    const token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    const projectId = (await makeProject(server.services, company)).id;
    // Even bytes a scanner would flag: nothing looked at them.
    const sent = await upload(server.api, token, { name: 'unscanned.dcm', data: infectedDicom() }, projectId);
    const fileId: number = sent.body.data[0].id;
    const row = await waitProcessed(server.api, token, projectId, fileId);
    expect(row.processing.status).toBe('ready');
    expect(row.scan).toEqual({ status: 'not_scanned', signature: null });
    expect(row.processing.summary.infected).toBeUndefined();
    const entries = (await call(`${server.api}/study-petitions-files/${fileId}/contents`, { token })).body.data.entries;
    expect(entries[0].scan).toEqual({ status: 'not_scanned', signature: null });
    expect((await download(server.api, token, fileId)).status).toBe(200);
  });
});

describe.each(dialects())('a virus scanner that stays down, %s', (dialect) => {
  let server: TestServer;
  let scratch: string;

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-scan-down-'));
    // No clamd ever listens here; one attempt, so the job gives up at once.
    server = await startTestServer(dialect, { CLAMD_SOCKET: path.join(scratch, 'clamd.sock'), JOB_MAX_ATTEMPTS: '1' }, { jobs: true });
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('fails the upload when its job gives up, and says it was not scanned rather than waiting forever', async () => {
    const company = await makeCompany(server.services);
    const token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    const projectId = (await makeProject(server.services, company)).id;
    const fileId: number = (await upload(server.api, token, { name: 'never-scanned.dcm', data: dicomFixture('s01_CT_small.dcm') }, projectId)).body.data[0].id;
    const row = await waitProcessed(server.api, token, projectId, fileId);
    expect(row.processing.status).toBe('failed');
    expect(row.scan).toEqual({ status: 'not_scanned', signature: SCANNER_GAVE_UP });
  });
});
