// De-identification checked again on the server (issue 33, item 4): DICOM files that still carry
// identity, sent by the multipart call, by tus and as a delivery (files alone and in a bundle) into a
// project with the profile 'basic', are de-identified by the server with the project's key; what the
// API answers carries the pseudonym the browser would compute; nothing planted is left anywhere
// under DATA_DIR or in the database; a file already de-identified is kept byte for byte; a file
// the engine cannot read and an archive are not kept; a project with 'off' keeps what is sent.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deidentify, pseudonymOf } from '@portal/deid';
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { processUpload } from '../../src/processing/process-upload.job.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, encodeMetadata, patchUpload, uploadUrl } from '../tus.js';
import { dicomFixture, download, sha256, storedFiles, upload, waitProcessed as waitProcessedIn, zipFileHashes } from '../uploads.js';
import { basicProject as basicProjectOf, plantIdentity, tarBundle } from '../deidentification-fixtures.js';
import { everyRowAsText, filesUnder } from '../leak-search.js';

const PLANTED = {
  name: 'PLANTED^NAMEXQ',
  id: 'PLANTEDID4711',
  nestedId: 'NESTEDID8812',
  privateCreator: 'PLANTCREATOR',
  privateValue: 'PRIVATEVAL9933',
};
const PLANTED_TEXTS = Object.values(PLANTED);

const plant = (scratch: string, fixture: string): Buffer => plantIdentity(scratch, fixture, PLANTED);

function sopInstanceUidOf(bytes: Buffer, scratch: string): string {
  const file = path.join(scratch, `uid-${sha256(bytes)}.dcm`);
  fs.writeFileSync(file, bytes);
  return /\[([0-9.]+)\]/.exec(execFileSync('dcmdump', ['+P', '0008,0018', file]).toString())![1]!;
}

/** dcmdump reads the file whole, without an error. */
function dcmdumpReads(bytes: Buffer, scratch: string): string {
  const file = path.join(scratch, `check-${sha256(bytes)}.dcm`);
  fs.writeFileSync(file, bytes);
  return execFileSync('dcmdump', ['-q', file]).toString();
}


describe.each(dialects())('de-identification on the server, %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  let admin: string;
  let scratch: string;
  let originalUids: string[];
  const planted = new Map<string, Buffer>();

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-server-deid-'));
    server = await startTestServer(dialect, { UPLOAD_MAX_OPEN_PER_USER: '50' }, { jobs: true });
    company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    admin = await login(server.api, (await makeUser(server.services, { role: ROLES.SysAdmin })).username, PASSWORD);
    for (const fixture of ['s01_CT_small.dcm', 's03_CT_series5N_2062.dcm', 's04_CT_series5N_2392.dcm', 's05_CT_series5N_2693.dcm', 's06_CT_series5N_3023.dcm']) {
      planted.set(fixture, plant(scratch, fixture));
    }
    originalUids = [...planted.values()].map((bytes) => sopInstanceUidOf(bytes, scratch));
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const basicProject = () => basicProjectOf(server, company, { admin, user: token });
  const waitProcessed = (projectId: number, fileId: number) => waitProcessedIn(server.api, token, projectId, fileId);
  const contentsOf = (fileId: number) => call(`${server.api}/study-petitions-files/${fileId}/contents?limit=100`, { token });
  const studiesOf = (projectId: number) => call(`${server.api}/study-petitions/${projectId}/studies`, { token });
  const outcomeOf = async (fileId: number) => {
    const row = await server.services.handle.db.selectFrom('project_files').select('deid_outcome').where('id', '=', fileId).executeTakeFirstOrThrow();
    return row.deid_outcome === null ? null : JSON.parse(row.deid_outcome);
  };

  function expectNothingPlanted(bytes: Buffer | string, where: string): void {
    const haystack = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
    for (const text of [...PLANTED_TEXTS, ...originalUids]) expect(haystack.includes(Buffer.from(text)), `${text} in ${where}`).toBe(false);
  }

  async function tusUpload(projectId: number, name: string, data: Buffer): Promise<number> {
    const created = await createUpload(server.api, token, { name, projectId, size: data.length });
    expect(created.status).toBe(201);
    const patched = await patchUpload(uploadUrl(server.api, created), token, 0, data);
    expect(patched.status).toBe(204);
    return Number(patched.headers.get('portal-file-id'));
  }

  it('de-identifies a single upload sent by multipart: the download carries none of the planted values, dcmtk reads it, the answers carry the pseudonym', async () => {
    const { id: projectId, key } = await basicProject();
    const original = planted.get('s01_CT_small.dcm')!;
    const sent = await upload(server.api, token, { name: 'planted.dcm', data: original }, projectId);
    expect(sent.status).toBe(201);
    const row = await waitProcessed(projectId, sent.body.data[0].id);
    expect(row.processing.status).toBe('ready');
    const got = await download(server.api, token, row.id);
    expect(got.status).toBe(200);
    expectNothingPlanted(got.bytes, 'the download');
    const dump = dcmdumpReads(got.bytes, scratch);
    const pseudonym = pseudonymOf(PLANTED.id, key);
    expect(dump).toContain(`[${pseudonym}]`);
    expect(dump).toContain('(0012,0062) CS [YES]');
    // The row names the de-identified bytes: their size and SHA-256.
    expect(row.filesize).toBe(got.bytes.length);
    expect(row.sha256).toBe(sha256(got.bytes));
    // The same bytes the browser would send: the engine, with the project's key, gives them too.
    expect(sha256(got.bytes)).toBe(sha256(deidentify(original, { profile: 'basic', options: [] }, key).bytes));
    const contents = await contentsOf(row.id);
    expect(contents.body.data.entries[0].dicom).toMatchObject({ patient_id: pseudonym, patient_name: pseudonym });
    expectNothingPlanted(JSON.stringify(contents.body), 'the contents');
    const studies = await studiesOf(projectId);
    expect(JSON.stringify(studies.body)).toContain(pseudonym);
    expectNothingPlanted(JSON.stringify(studies.body), 'the studies');
    expect(await outcomeOf(row.id)).toMatchObject({ profile: 'basic', deidentified_by: 'server', instances: { server: 1, browser: 0, refused: 0 } });
    expect((await outcomeOf(row.id)).counts.private_removed).toBeGreaterThan(0);
  });

  it('de-identifies a single upload sent by tus the same way', async () => {
    const { id: projectId, key } = await basicProject();
    const fileId = await tusUpload(projectId, 'planted-tus.dcm', planted.get('s03_CT_series5N_2062.dcm')!);
    const row = await waitProcessed(projectId, fileId);
    expect(row.processing.status).toBe('ready');
    const got = await download(server.api, token, fileId);
    expectNothingPlanted(got.bytes, 'the download');
    expect(dcmdumpReads(got.bytes, scratch)).toContain(`[${pseudonymOf(PLANTED.id, key)}]`);
    expect((await contentsOf(fileId)).body.data.entries[0].dicom.patient_id).toBe(pseudonymOf(PLANTED.id, key));
  });

  it('deletes the original on a rerun of a job that died after naming the copy and before deleting it', async () => {
    const { id: projectId } = await basicProject();
    const original = planted.get('s06_CT_series5N_3023.dcm')!;
    const sent = await upload(server.api, token, { name: 'rerun.dcm', data: original }, projectId);
    const row = await waitProcessed(projectId, sent.body.data[0].id);
    const { storage_key: copyKey } = await server.services.handle.db.selectFrom('project_files').select('storage_key').where('id', '=', row.id).executeTakeFirstOrThrow();
    expect(copyKey).toMatch(/-deidentified$/);
    // As the crash left it: the original still stored beside the copy the row names.
    const originalKey = copyKey.slice(0, -'-deidentified'.length);
    await server.services.storage.putBytes(originalKey, original);
    const workDir = fs.mkdtempSync(path.join(scratch, 'job-'));
    const deps = { files: server.services.repos.files, entries: server.services.repos.entries, storage: server.services.storage, limits: {}, policies: server.services.deidentification };
    await processUpload(deps, { fileId: row.id, companyId: company.id }, { signal: new AbortController().signal, workDir: () => Promise.resolve(workDir), attempt: 2 });
    expect(await server.services.storage.stat(originalKey)).toBeNull();
    expect(await outcomeOf(row.id)).toMatchObject({ deidentified_by: 'server' });
    expect(sha256((await download(server.api, token, row.id)).bytes)).toBe(row.sha256);
  });

  it('keeps a file the browser de-identified with the project’s key byte for byte', async () => {
    const { id: projectId, key } = await basicProject();
    const done = Buffer.from(deidentify(planted.get('s04_CT_series5N_2392.dcm')!, { profile: 'basic', options: [] }, key).bytes);
    const sent = await upload(server.api, token, { name: 'done.dcm', data: done }, projectId);
    const row = await waitProcessed(projectId, sent.body.data[0].id);
    expect(row.processing.status).toBe('ready');
    expect(sha256((await download(server.api, token, row.id)).bytes)).toBe(sha256(done));
    expect(await outcomeOf(row.id)).toMatchObject({ deidentified_by: 'browser', instances: { server: 0, browser: 1 } });
    // De-identified with another project's key, it is de-identified again: pseudonyms are per project.
    const other = await basicProject();
    const again = await upload(server.api, token, { name: 'done.dcm', data: done }, other.id);
    const otherRow = await waitProcessed(other.id, again.body.data[0].id);
    expect(otherRow.sha256).not.toBe(sha256(done));
    expect((await contentsOf(otherRow.id)).body.data.entries[0].dicom.patient_id).not.toBe(pseudonymOf(PLANTED.id, key));
  });

  it('does not keep a file it cannot de-identify: the row fails with the reason in words, the bytes are gone', async () => {
    const { id: projectId } = await basicProject();
    const dicomdir = await upload(server.api, token, { name: 'DICOMDIR', data: dicomFixture('s40_DICOMDIR') }, projectId);
    expect(dicomdir.status).toBe(201);
    const refused = await waitProcessed(projectId, dicomdir.body.data[0].id);
    expect(refused.processing.status).toBe('failed');
    expect(refused.processing.error).toMatch(/DICOMDIR.*deleted/s);
    // Cut inside its pixel data: DICOM by its first bytes, but not readable whole.
    const whole = planted.get('s05_CT_series5N_2693.dcm')!;
    const cut = whole.subarray(0, whole.length - 100);
    const broken = await upload(server.api, token, { name: 'cut.dcm', data: cut }, projectId);
    const brokenRow = await waitProcessed(projectId, broken.body.data[0].id);
    expect(brokenRow.processing.status).toBe('failed');
    expect(brokenRow.processing.error).toMatch(/cannot be read|not a DICOM/);
    const rows = await server.services.handle.db.selectFrom('project_files').select('storage_key').where('project_id', '=', projectId).execute();
    const stored = new Set(storedFiles(server.config.dataDir));
    for (const { storage_key } of rows) expect(stored.has(storage_key)).toBe(false);
  });

  it('de-identifies a delivery’s files sent alone and in a bundle; leaves out what is not DICOM; deletes every identified object', async () => {
    const { id: projectId, key } = await basicProject();
    const delivery: number = (await call(`${server.api}/deliveries`, { method: 'POST', token, json: { studypetitionid: projectId, name: 'CD export' } })).body.data[0].id;
    const alone = planted.get('s05_CT_series5N_2693.dcm')!;
    const browserDone = Buffer.from(deidentify(planted.get('s01_CT_small.dcm')!, { profile: 'basic', options: [] }, key).bytes);
    const sendAlone = (relativePath: string, data: Buffer) =>
      createUpload(server.api, token, { size: data.length, body: data, metadata: encodeMetadata({ filename: path.posix.basename(relativePath), delivery: String(delivery), relativePath }) });
    expect((await sendAlone('DICOM/IM1', alone)).status).toBe(201);
    expect((await sendAlone('DICOM/DONE', browserDone)).status).toBe(201);
    const bundle = tarBundle({
      'DICOM/IM2': planted.get('s06_CT_series5N_3023.dcm')!,
      'DICOM/IM3': planted.get('s04_CT_series5N_2392.dcm')!,
      'README.TXT': Buffer.from(`Patient ${PLANTED.name}\n`),
      DICOMDIR: dicomFixture('s40_DICOMDIR'),
      'DICOM/CUT': planted.get('s03_CT_series5N_2062.dcm')!.subarray(0, planted.get('s03_CT_series5N_2062.dcm')!.length - 100),
    });
    const sentBundle = await createUpload(server.api, token, { size: bundle.length, body: bundle, metadata: encodeMetadata({ filename: 'bundle-1.tar', delivery: String(delivery), bundle: 'tar' }) });
    expect(sentBundle.status).toBe(201);
    const identifiedKeys = (await server.services.handle.db.selectFrom('delivery_files').select(['relative_path', 'storage_key']).where('delivery_id', '=', delivery).execute())
      .filter((m) => m.relative_path !== 'DICOM/DONE')
      .map((m) => m.storage_key);
    const completed = await call(`${server.api}/deliveries/${delivery}/complete`, { method: 'POST', token });
    const fileId: number = completed.body.data[0].file_id;
    const row = await waitProcessed(projectId, fileId);
    expect(row.processing.status).toBe('ready');

    const entries = (await contentsOf(fileId)).body.data.entries as { path: string; kind: string; reason: string | null; dicom: { patient_id: string } | null }[];
    const byPath = Object.fromEntries(entries.map((e) => [e.path, e]));
    for (const p of ['DICOM/IM1', 'DICOM/IM2', 'DICOM/IM3', 'DICOM/DONE']) expect(byPath[p]?.dicom?.patient_id, p).toBe(pseudonymOf(PLANTED.id, key));
    expect(byPath['README.TXT']).toMatchObject({ kind: 'skipped', reason: expect.stringContaining('only DICOM files') });
    // The delivery's reading takes a DICOMDIR for 'other' (it is no instance): left out with the rest.
    expect(byPath.DICOMDIR).toMatchObject({ kind: 'skipped', reason: expect.stringContaining('not kept') });
    expect(byPath['DICOM/CUT']).toMatchObject({ kind: 'skipped', reason: expect.stringMatching(/cannot be read completely.*deleted/s) });
    expectNothingPlanted(JSON.stringify(entries), 'the contents');
    expect(await outcomeOf(fileId)).toMatchObject({ deidentified_by: 'both', instances: { server: 3, browser: 1, refused: 1 } });

    const zipPath = path.join(scratch, 'delivery.zip');
    const zip = await download(server.api, token, fileId);
    expect(zip.status).toBe(200);
    fs.writeFileSync(zipPath, zip.bytes);
    const hashes = zipFileHashes(zipPath, scratch);
    expect(Object.keys(hashes).sort()).toEqual(['DICOM/DONE', 'DICOM/IM1', 'DICOM/IM2', 'DICOM/IM3']);
    expect(hashes['DICOM/DONE']).toBe(sha256(browserDone));
    const unpacked = fs.mkdtempSync(path.join(scratch, 'zip-'));
    execFileSync('bsdtar', ['-xf', zipPath, '-C', unpacked]);
    for (const p of Object.keys(hashes)) {
      const bytes = fs.readFileSync(path.join(unpacked, p));
      expectNothingPlanted(bytes, p);
      dcmdumpReads(bytes, scratch);
    }
    // The delivery's objects as they arrived (the file sent alone, the bundle) are gone; the browser's is kept.
    // They are deleted just after the row turns ready (a rerun before then reads them again), then their records.
    const membersLeft = () => server.services.handle.db.selectFrom('delivery_files').select(['relative_path', 'storage_key']).where('delivery_id', '=', delivery).execute();
    for (let i = 0; i < 100 && (await membersLeft()).length > 1; i += 1) await new Promise((r) => setTimeout(r, 20));
    expect((await membersLeft()).map((m) => m.relative_path)).toEqual(['DICOM/DONE']);
    expect(await server.services.handle.db.selectFrom('delivery_bundles').selectAll().where('delivery_id', '=', delivery).execute()).toEqual([]);
    const stored = new Set(storedFiles(server.config.dataDir));
    for (const k of identifiedKeys) expect(stored.has(k)).toBe(false);
    expect(stored.has((await membersLeft())[0]!.storage_key)).toBe(true);
  });

  it('keeps a bundle whose every file the browser de-identified and reads its files in place; a bundle with one identified file still goes', async () => {
    const { id: projectId, key } = await basicProject();
    const delivery: number = (await call(`${server.api}/deliveries`, { method: 'POST', token, json: { studypetitionid: projectId, name: 'CD export' } })).body.data[0].id;
    const browserDone = (fixture: string) => Buffer.from(deidentify(planted.get(fixture)!, { profile: 'basic', options: [] }, key).bytes);
    const done = { 'DICOM/IM1': browserDone('s01_CT_small.dcm'), 'DICOM/IM2': browserDone('s06_CT_series5N_3023.dcm') };
    const send = async (name: string, files: Record<string, Buffer>) => {
      const bundle = tarBundle(files);
      const sent = await createUpload(server.api, token, { size: bundle.length, body: bundle, metadata: encodeMetadata({ filename: name, delivery: String(delivery), bundle: 'tar' }) });
      expect(sent.status).toBe(201);
    };
    await send('bundle-1.tar', done);
    await send('bundle-2.tar', { 'DICOM/IM3': planted.get('s04_CT_series5N_2392.dcm')!, 'DICOM/IM4': browserDone('s05_CT_series5N_2693.dcm') });
    const keyOf = async (relativePath: string) =>
      (await server.services.handle.db.selectFrom('delivery_files').select('storage_key').where('delivery_id', '=', delivery).where('relative_path', '=', relativePath).executeTakeFirstOrThrow()).storage_key;
    const [kept, identified] = [await keyOf('DICOM/IM1'), await keyOf('DICOM/IM3')];
    const completed = await call(`${server.api}/deliveries/${delivery}/complete`, { method: 'POST', token });
    const fileId: number = completed.body.data[0].file_id;
    expect((await waitProcessed(projectId, fileId)).processing.status).toBe('ready');
    expect(await outcomeOf(fileId)).toMatchObject({ deidentified_by: 'both', instances: { server: 1, browser: 3, refused: 0 } });

    const entries = await server.services.handle.db.selectFrom('file_entries').select(['path', 'storage_key', 'storage_offset']).where('file_id', '=', fileId).orderBy('seq').execute();
    const byPath = Object.fromEntries(entries.map((e) => [e.path, e]));
    for (const p of ['DICOM/IM1', 'DICOM/IM2']) expect(byPath[p]).toMatchObject({ storage_key: kept, storage_offset: expect.anything() });
    for (const p of ['DICOM/IM3', 'DICOM/IM4']) expect(byPath[p]).toMatchObject({ storage_key: expect.not.stringMatching(identified), storage_offset: null });
    const zipPath = path.join(scratch, 'kept-bundle.zip');
    fs.writeFileSync(zipPath, (await download(server.api, token, fileId)).bytes);
    const hashes = zipFileHashes(zipPath, scratch);
    for (const [p, bytes] of Object.entries(done)) expect(hashes[p], p).toBe(sha256(bytes));
    const unpacked = fs.mkdtempSync(path.join(scratch, 'zip-'));
    execFileSync('bsdtar', ['-xf', zipPath, '-C', unpacked]);
    for (const p of Object.keys(hashes)) expectNothingPlanted(fs.readFileSync(path.join(unpacked, p)), p);

    // The bundle holding an identified file goes, as every identified object does; the other stays, its files read from it.
    const gone = () => !new Set(storedFiles(server.config.dataDir)).has(identified);
    for (let i = 0; i < 100 && !gone(); i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(gone()).toBe(true);
    expect(new Set(storedFiles(server.config.dataDir)).has(kept)).toBe(true);
  });

  it('leaves no planted value anywhere under DATA_DIR or in the database', async () => {
    for (const file of filesUnder(server.config.dataDir)) expectNothingPlanted(fs.readFileSync(file), file);
    expectNothingPlanted(await everyRowAsText(server.services.handle.db, dialect), 'the database');
  });

  it('keeps what is sent as it is in a project with the profile off', async () => {
    const project = await makeProject(server.services, company);
    const original = planted.get('s01_CT_small.dcm')!;
    const sent = await upload(server.api, token, { name: 'kept.dcm', data: original }, project.id);
    const row = await waitProcessed(project.id, sent.body.data[0].id);
    expect(row.processing.status).toBe('ready');
    expect(sha256((await download(server.api, token, row.id)).bytes)).toBe(sha256(original));
    expect((await contentsOf(row.id)).body.data.entries[0].dicom).toMatchObject({ patient_id: PLANTED.id });
    expect(await outcomeOf(row.id)).toBeNull();
  });
});
