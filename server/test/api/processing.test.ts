import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { uploadSubject } from '../../src/files/file-jobs.js';
import { givenUpMessage } from '../../src/processing/process-upload.job.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { dcmdumpTags, DICOM_DIR } from '../ingest/helpers.js';
import { startTestServer, type TestServer } from '../server.js';
import { dicomFixture, makeArchive, sha256, upload } from '../uploads.js';

const SERIES = ['s03_CT_series5N_2062.dcm', 's04_CT_series5N_2392.dcm', 's05_CT_series5N_2693.dcm', 's06_CT_series5N_3023.dcm', 's07_CT_series5N_3353.dcm'];
const UID_TAGS = ['0020,000d', '0020,000e', '0008,0018'] as const;

describe.each(dialects())('automatic processing on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  let scratch: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { JOB_RETRY_BASE_SECONDS: '0', JOB_MAX_ATTEMPTS: '2' }, { jobs: true });
    company = await makeCompany(server.services);
    const user = await makeUser(server.services, { company });
    token = await login(server.api, user.username, PASSWORD);
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-processing-'));
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** Uploads and waits, as the web app does by polling the list, until processing has finished. */
  async function uploadAndWait(name: string, data: Buffer, asToken = token) {
    const project = await makeProject(server.services, company);
    const answer = await upload(server.api, asToken, { name, data }, project.id);
    expect(answer.status).toBe(201);
    const id: number = answer.body.data[0].id;
    for (let i = 0; i < 600; i += 1) {
      const list = await call(`${server.api}/study-petitions-files?study_petition_id=${project.id}`, { token: asToken });
      const file = list.body.data.find((f: { id: number }) => f.id === id);
      if (file.processing.status === 'ready' || file.processing.status === 'failed') return file;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('processing did not finish');
  }

  it('indexes a single DICOM upload: one study, one series, one instance, downloadable as an entry', async () => {
    const data = dicomFixture('s01_CT_small.dcm');
    const file = await uploadAndWait('ct.dcm', data);
    expect(file.processing).toMatchObject({ status: 'ready', error: null, summary: { studies: 1, series: 1, instances: 1, other: 0, skipped: 0 } });
    const contents = (await call(`${server.api}/study-petitions-files/${file.id}/contents`, { token })).body.data;
    expect(contents.page).toEqual({ offset: 0, limit: 100, total: 1 });
    const [entry] = contents.entries;
    const reference = await dcmdumpTags(path.join(DICOM_DIR, 's01_CT_small.dcm'), [...UID_TAGS, '0008,0060']);
    expect(entry.dicom).toMatchObject({
      study_instance_uid: reference['0020,000d'],
      series_instance_uid: reference['0020,000e'],
      sop_instance_uid: reference['0008,0018'],
      modality: reference['0008,0060'],
    });
    const bytes = await fetch(`${server.api}/study-petitions-files/${file.id}/contents/${entry.id}/download`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(bytes.status).toBe(200);
    expect(sha256(Buffer.from(await bytes.arrayBuffer()))).toBe(sha256(data));
  });

  it('serves the entries of a stored zip from the upload itself: whole, by range, and nothing past the end', async () => {
    const members = Object.fromEntries(SERIES.slice(0, 3).map((name) => [name, dicomFixture(name)]));
    const zip = makeArchive(scratch, members, 'bsdtar --format zip --options zip:compression=store -cf out.zip *', 'out.zip');
    const file = await uploadAndWait('stored.zip', zip);
    expect(file.processing).toMatchObject({ status: 'ready', summary: { instances: 3, skipped: 0 } });
    const { entries } = (await call(`${server.api}/study-petitions-files/${file.id}/contents`, { token })).body.data;
    const auth = { authorization: `Bearer ${token}` };
    for (const entry of entries as { id: number; path: string; size: number; sha256: string }[]) {
      const url = `${server.api}/study-petitions-files/${file.id}/contents/${entry.id}/download`;
      const whole = await fetch(url, { headers: auth });
      expect(whole.status).toBe(200);
      expect(whole.headers.get('content-length')).toBe(String(entry.size));
      const bytes = Buffer.from(await whole.arrayBuffer());
      expect(bytes.equals(members[entry.path]!)).toBe(true);
      expect(sha256(bytes)).toBe(entry.sha256);
      const part = await fetch(url, { headers: { ...auth, range: 'bytes=128-139' } });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 128-139/${entry.size}`);
      expect(Buffer.from(await part.arrayBuffer()).equals(members[entry.path]!.subarray(128, 140))).toBe(true);
      const past = await fetch(url, { headers: { ...auth, range: `bytes=${entry.size}-` } });
      expect(past.status).toBe(416);
    }
    // Nothing was copied out: the entries are ranges of the stored upload.
    expect(fs.existsSync(path.join(server.database.dataDir, 'objects', 'entries', String(file.id)))).toBe(false);
  });

  it('stores a DICOM text value holding a NUL byte, beside the good instances of the same archive', async () => {
    const damaged = Buffer.from(dicomFixture('s03_CT_series5N_2062.dcm'));
    const description = damaged.indexOf('SmartScore - Gated 0.5 sec', 0, 'latin1');
    expect(description).toBeGreaterThan(0);
    damaged[description + 10] = 0;
    const members = { 'nul.dcm': damaged, 'good.dcm': dicomFixture('s04_CT_series5N_2392.dcm') };
    const file = await uploadAndWait('nul.zip', makeArchive(scratch, members, 'bsdtar --format zip -cf out.zip *', 'out.zip'));
    expect(file.processing).toMatchObject({ status: 'ready', error: null, summary: { instances: 2, skipped: 0 } });
    const entries = (await call(`${server.api}/study-petitions-files/${file.id}/contents`, { token })).body.data.entries;
    const nul = entries.find((e: { path: string }) => e.path === 'nul.dcm');
    expect(nul.dicom.series_description).toBe('SmartScore- Gated 0.5 sec');
  });

  it('indexes a zip of a real CT series and a text file, matching dcmdump UID for UID', async () => {
    const members = Object.fromEntries(SERIES.map((name) => [name, dicomFixture(name)]));
    const zip = makeArchive(scratch, { ...members, 'README.txt': Buffer.from('acquired 2026') }, 'bsdtar --format zip -cf out.zip *', 'out.zip');
    const file = await uploadAndWait('series.zip', zip);
    expect(file.processing).toMatchObject({ status: 'ready', summary: { studies: 1, series: 1, instances: 5, other: 1, skipped: 0 } });
    const contents = (await call(`${server.api}/study-petitions-files/${file.id}/contents?kind=dicom`, { token })).body.data;
    expect(contents.page.total).toBe(5);
    for (const name of SERIES) {
      const reference = await dcmdumpTags(path.join(DICOM_DIR, name), UID_TAGS);
      const entry = contents.entries.find((e: { path: string }) => e.path === name);
      expect(entry.dicom.sop_instance_uid).toBe(reference['0008,0018']);
      expect(entry.dicom.series_instance_uid).toBe(reference['0020,000e']);
      expect(entry.sha256).toBe(sha256(dicomFixture(name)));
    }
    expect(contents.studies).toHaveLength(1);
    expect(contents.studies[0].series).toEqual([expect.objectContaining({ instances: 5, modality: 'CT' })]);
    const other = (await call(`${server.api}/study-petitions-files/${file.id}/contents?kind=other`, { token })).body.data;
    expect(other.entries.map((e: { path: string }) => e.path)).toEqual(['README.txt']);
    const paged = (await call(`${server.api}/study-petitions-files/${file.id}/contents?offset=2&limit=2`, { token })).body.data;
    expect(paged.entries).toHaveLength(2);
    expect(paged.page).toEqual({ offset: 2, limit: 2, total: 6 });
  });

  it("fails an encrypted archive with the reason 'password-protected archives are not supported'", async () => {
    const zip = makeArchive(scratch, { 'a.dcm': dicomFixture('s01_CT_small.dcm') }, '7zz a -bso0 -bsp0 -tzip -pSECRET out.zip a.dcm', 'out.zip');
    const file = await uploadAndWait('secret.zip', zip);
    expect(file.processing.status).toBe('failed');
    expect(file.processing.error).toContain('password-protected archives are not supported');
  });

  it('skips a path-traversal entry, counting its reason, and keeps the rest', async () => {
    const tar = makeArchive(
      scratch,
      { 'ok.dcm': dicomFixture('s10_MR_small_implicit.dcm') },
      "bsdtar -cf out.tar -P -s ',^evil,../../evil,' ok.dcm && cp ok.dcm evil.dcm && bsdtar -rf out.tar -P -s ',^evil,../../evil,' evil.dcm",
      'out.tar',
    );
    const file = await uploadAndWait('trick.tar', tar);
    expect(file.processing.status).toBe('ready');
    expect(file.processing.summary.instances).toBe(1);
    expect(file.processing.summary.skipped).toBe(1);
    expect(Object.keys(file.processing.summary.skipped_reasons)).toHaveLength(1);
  });

  it('shows archive entry paths without the bidirectional controls their names held, recorded and shown alike', async () => {
    const ct = dicomFixture('s10_MR_small_implicit.dcm');
    const tar = makeArchive(scratch, { 'SE\u2066RIES\u2069/IM\u202E1gpj.dcm': ct, 'notes\u200F\u061C.txt': Buffer.from('x') }, 'bsdtar -cf ../bidi-entries.tar .', '../bidi-entries.tar');
    const file = await uploadAndWait('bidi.tar', tar);
    expect(file.processing.status).toBe('ready');
    const contents = async () => (await call(`${server.api}/study-petitions-files/${file.id}/contents`, { token })).body.data.entries.map((e: { path: string }) => e.path).sort();
    expect(await contents()).toEqual(['SERIES/IM1gpj.dcm', 'notes.txt']);
    const stored = await server.services.handle.db.selectFrom('file_entries').select('path').where('file_id', '=', file.id).execute();
    expect(stored.map((r) => r.path).sort()).toEqual(['SERIES/IM1gpj.dcm', 'notes.txt']);
    // A row recorded before paths were cleaned is shown cleaned too.
    await server.services.handle.db.updateTable('file_entries').set({ path: 'old\u202Egpj.dcm' }).where('file_id', '=', file.id).where('path', '=', 'notes.txt').execute();
    expect(await contents()).toEqual(['SERIES/IM1gpj.dcm', 'oldgpj.dcm']);
  });

  it('retries a transient failure, then records it after the last attempt', async () => {
    const project = await makeProject(server.services, company);
    await server.runner!.stop();
    const answer = await upload(server.api, token, { name: 'gone.dcm', data: dicomFixture('s01_CT_small.dcm') }, project.id);
    const id: number = answer.body.data[0].id;
    const row = await server.services.repos.files.findForProcessing(id);
    await server.services.storage.delete(row!.storage_key);
    server.runner!.start();
    for (let i = 0; i < 300; i += 1) {
      const [job] = await server.services.repos.jobs.findBySubject(uploadSubject(id));
      if (job?.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const [job] = await server.services.repos.jobs.findBySubject(uploadSubject(id));
    expect(job).toMatchObject({ status: 'failed', attempts: 2 });
    const list = await call(`${server.api}/study-petitions-files?study_petition_id=${project.id}`, { token });
    expect(list.body.data[0].processing.status).toBe('failed');
    // In words: the storage error's own text (an internal path) stays in the server's log.
    expect(list.body.data[0].processing.error).toBe(givenUpMessage(2));
  });

  it('cancels processing when the file is deleted', async () => {
    const project = await makeProject(server.services, company);
    await server.runner!.stop();
    const answer = await upload(server.api, token, { name: 'x.dcm', data: dicomFixture('s01_CT_small.dcm') }, project.id);
    const id: number = answer.body.data[0].id;
    await call(`${server.api}/study-petitions-files-delete/${id}`, { method: 'PUT', token });
    server.runner!.start();
    // Instead of waiting out a fixed time: a file uploaded after the delete is processed, so the
    // restarted runner has claimed jobs since, and the deleted file's job was not among them.
    expect((await uploadAndWait('after.dcm', dicomFixture('s01_CT_small.dcm'))).processing.status).toBe('ready');
    const [job] = await server.services.repos.jobs.findBySubject(uploadSubject(id));
    expect(job?.status).toBe('cancelled');
    expect(await server.services.repos.entries.recordedCount(id)).toBe(0);
  });

  it("cancels processing of a deleted project's files", async () => {
    const project = await makeProject(server.services, company);
    await server.runner!.stop();
    const answer = await upload(server.api, token, { name: 'p.dcm', data: dicomFixture('s01_CT_small.dcm') }, project.id);
    await call(`${server.api}/study-petitions-delete/${project.id}`, { method: 'PUT', token });
    server.runner!.start();
    const [job] = await server.services.repos.jobs.findBySubject(uploadSubject(answer.body.data[0].id));
    expect(job?.status).toBe('cancelled');
  });

  it("answers 404 for another company's contents exactly as for a missing file", async () => {
    const file = await uploadAndWait('mine.dcm', dicomFixture('s01_CT_small.dcm'));
    const stranger = await makeUser(server.services, { company: await makeCompany(server.services) });
    const strangerToken = await login(server.api, stranger.username, PASSWORD);
    const foreign = await call(`${server.api}/study-petitions-files/${file.id}/contents`, { token: strangerToken });
    const missing = await call(`${server.api}/study-petitions-files/99999999/contents`, { token: strangerToken });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    const entryDownload = await call(`${server.api}/study-petitions-files/${file.id}/contents/1/download`, { token: strangerToken });
    expect(entryDownload.status).toBe(404);
    const sys = await makeUser(server.services, { role: ROLES.SysUser });
    const sysToken = await login(server.api, sys.username, PASSWORD);
    expect((await call(`${server.api}/study-petitions-files/${file.id}/contents`, { token: sysToken })).status).toBe(200);
    expect((await call(`${server.api}/study-petitions-files/${file.id}/contents?limit=100000`, { token })).status).toBe(400);
  });
});
