// Server-side de-identification of an archive sent whole (issue 33, item 4): a zip and a tar.gz made
// by bsdtar from real DICOM files carrying planted identity (and one text file), sent by the
// multipart call and by tus into a project with the basic profile. Its DICOM entries are kept
// de-identified, the text file is left out with the reason, the row downloads its entries as a zip,
// the archive as it arrived is gone, and no planted value is anywhere (database, DATA_DIR, answers).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pseudonymOf } from '@portal/deid';
import { ROLES, TAR_END, tarMemberHeader, tarPadding } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { processUpload } from '../../src/processing/process-upload.job.js';
import { NOT_DICOM_LEFT_OUT } from '../../src/processing/server-deidentification.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, encodeMetadata, patchUpload, uploadUrl } from '../tus.js';
import { download, makeArchive, storedFiles, upload, waitProcessed as waitProcessedIn, zipFileHashes } from '../uploads.js';
import { basicProject as basicProjectOf, plantIdentity } from '../deidentification-fixtures.js';
import { everyRowAsText, filesUnder } from '../leak-search.js';

const PLANTED = { name: 'PLANTED^ARCHIVEQ', id: 'PLANTEDARC5521', nestedId: 'NESTEDARC6632', privateCreator: 'PLANTARCCREATOR', privateValue: 'PRIVARC7743' };
const PLANTED_TEXTS = Object.values(PLANTED);
const FIXTURE_NAMES = ['s01_CT_small.dcm', 's03_CT_series5N_2062.dcm', 's04_CT_series5N_2392.dcm'];

const plant = (scratch: string, fixture: string): Buffer => plantIdentity(scratch, fixture, PLANTED);

type ListedEntry = { path: string; kind: string; reason: string | null; dicom: { patient_id: string; patient_name: string } | null };

describe.each(dialects())('de-identification of archives on the server, %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  let admin: string;
  let scratch: string;
  let members: Record<string, Buffer>;

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-server-deid-archives-'));
    server = await startTestServer(dialect, { UPLOAD_MAX_OPEN_PER_USER: '50' }, { jobs: true });
    company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    admin = await login(server.api, (await makeUser(server.services, { role: ROLES.SysAdmin })).username, PASSWORD);
    members = { 'notes.txt': Buffer.from('Referral letter, see the scans.\n') };
    FIXTURE_NAMES.forEach((fixture, i) => {
      members[`DICOM/IM${i + 1}`] = plant(scratch, fixture);
    });
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const basicProject = () => basicProjectOf(server, company, { admin, user: token });
  const waitProcessed = (projectId: number, fileId: number) => waitProcessedIn(server.api, token, projectId, fileId);
  const contentsOf = (fileId: number) => call(`${server.api}/study-petitions-files/${fileId}/contents?limit=100`, { token });
  const answers: string[] = [];

  function expectNothingPlanted(bytes: Buffer | string, where: string): void {
    const haystack = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
    for (const text of PLANTED_TEXTS) expect(haystack.includes(Buffer.from(text)), `${text} in ${where}`).toBe(false);
  }

  // A stored (uncompressed) zip's entries are read in place in the archive; the others are extracted.
  const archive = (kind: 'zip' | 'stored.zip' | 'tar.gz') => {
    const name = `study.${kind}`;
    const format = kind === 'zip' ? '--format zip' : kind === 'stored.zip' ? '--format zip --options zip:compression=store' : '-z';
    return { name, data: makeArchive(scratch, members, `bsdtar -c ${format} -f ${name} DICOM notes.txt`, name) };
  };

  async function tusUpload(projectId: number, name: string, data: Buffer): Promise<number> {
    const created = await createUpload(server.api, token, { name, projectId, size: data.length });
    expect(created.status).toBe(201);
    const patched = await patchUpload(uploadUrl(server.api, created), token, 0, data);
    expect(patched.status).toBe(204);
    return Number(patched.headers.get('portal-file-id'));
  }

  /** The entries of a row that must end 'ready'; the row and its contents are kept with the answers searched for leaks. */
  async function readyEntries(projectId: number, fileId: number): Promise<{ row: Awaited<ReturnType<typeof waitProcessed>>; entries: ListedEntry[] }> {
    const row = await waitProcessed(projectId, fileId);
    expect(row.processing.status).toBe('ready');
    answers.push(JSON.stringify(row));
    const contents = await contentsOf(fileId);
    answers.push(JSON.stringify(contents.body));
    return { row, entries: contents.body.data.entries as ListedEntry[] };
  }

  /** The row is ready; its entries de-identified, the text left out; its zip de-identified DICOM; the archive gone. */
  async function expectDeidentified(projectId: number, key: Uint8Array, fileId: number, originalKey: string): Promise<void> {
    const { row, entries } = await readyEntries(projectId, fileId);
    const pseudonym = pseudonymOf(PLANTED.id, key);
    const dicom = entries.filter((e) => e.kind === 'dicom');
    expect(dicom.map((e) => e.path).sort()).toEqual(['DICOM/IM1', 'DICOM/IM2', 'DICOM/IM3']);
    for (const e of dicom) expect(e.dicom).toMatchObject({ patient_id: pseudonym, patient_name: pseudonym });
    expect(entries.find((e) => e.path === 'notes.txt')).toMatchObject({ kind: 'skipped', reason: NOT_DICOM_LEFT_OUT });
    expect(row.processing.summary).toMatchObject({ instances: 3, skipped: 1 });

    const got = await download(server.api, token, fileId);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('application/zip');
    const zipPath = path.join(scratch, `download-${fileId}.zip`);
    fs.writeFileSync(zipPath, got.bytes);
    expect(Object.keys(zipFileHashes(zipPath, scratch)).sort()).toEqual(['DICOM/IM1', 'DICOM/IM2', 'DICOM/IM3']);
    const unpacked = fs.mkdtempSync(path.join(scratch, 'zip-'));
    execFileSync('bsdtar', ['-xf', zipPath, '-C', unpacked]);
    for (const p of ['DICOM/IM1', 'DICOM/IM2', 'DICOM/IM3']) {
      const file = path.join(unpacked, p);
      expectNothingPlanted(fs.readFileSync(file), `${p} of the download`);
      const dump = execFileSync('dcmdump', ['-q', file]).toString();
      expect(dump).toContain(`[${pseudonym}]`);
    }
    // The archive as it arrived is deleted just after the row turns ready.
    const gone = () => !storedFiles(server.config.dataDir).includes(originalKey);
    for (let i = 0; i < 100 && !gone(); i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(gone()).toBe(true);
  }

  const storageKeyOf = async (fileId: number) =>
    (await server.services.handle.db.selectFrom('project_files').select('storage_key').where('id', '=', fileId).executeTakeFirstOrThrow()).storage_key;

  it('keeps a zip’s (deflated and stored) and a tar.gz’s DICOM entries de-identified (multipart), leaves the text file out, downloads a zip, deletes the archive', async () => {
    const { id: projectId, key } = await basicProject();
    for (const kind of ['zip', 'stored.zip', 'tar.gz'] as const) {
      const sent = await upload(server.api, token, archive(kind), projectId);
      expect(sent.status).toBe(201);
      const fileId: number = sent.body.data[0].id;
      await expectDeidentified(projectId, key, fileId, await storageKeyOf(fileId));
    }
  });

  it('does the same for a zip sent by tus', async () => {
    const { id: projectId, key } = await basicProject();
    const { name, data } = archive('zip');
    const fileId = await tusUpload(projectId, name, data);
    await expectDeidentified(projectId, key, fileId, await storageKeyOf(fileId));
  });

  it('gives the same result when the job runs again after a crash, before or after ready, and deletes the archive again', async () => {
    const { id: projectId, key } = await basicProject();
    const { name, data } = archive('zip');
    const sent = await upload(server.api, token, { name, data }, projectId);
    const fileId: number = sent.body.data[0].id;
    const originalKey = await storageKeyOf(fileId);
    await expectDeidentified(projectId, key, fileId, originalKey);
    const entriesNow = async () => ((await contentsOf(fileId)).body.data.entries as { path: string; sha256: string | null; kind: string }[]).map((e) => `${e.path} ${e.kind} ${e.sha256}`).sort();
    const zipNow = async () => {
      const zipPath = path.join(scratch, `rerun-${fileId}-${Date.now()}.zip`);
      fs.writeFileSync(zipPath, (await download(server.api, token, fileId)).bytes);
      return zipFileHashes(zipPath, scratch);
    };
    const before = { entries: await entriesNow(), zip: await zipNow() };
    const workDir = fs.mkdtempSync(path.join(scratch, 'job-'));
    const deps = { files: server.services.repos.files, entries: server.services.repos.entries, storage: server.services.storage, limits: {}, policies: server.services.deidentification };
    const rerun = () => processUpload(deps, { fileId, companyId: company.id }, { signal: new AbortController().signal, workDir: () => Promise.resolve(workDir), attempt: 2 });
    // A crash after 'ready', before the archive was deleted: the rerun only deletes it.
    await server.services.storage.putBytes(originalKey, data);
    await rerun();
    expect(await server.services.storage.stat(originalKey)).toBeNull();
    expect(await entriesNow()).toEqual(before.entries);
    // A crash before 'ready' (the archive still there, no outcome yet): the rerun starts over, same result.
    await server.services.storage.putBytes(originalKey, data);
    await server.services.handle.db.updateTable('project_files').set({ processing_status: 'processing', deid_outcome: null }).where('id', '=', fileId).execute();
    await rerun();
    expect(await server.services.storage.stat(originalKey)).toBeNull();
    const row = await waitProcessed(projectId, fileId);
    expect(row.processing.status).toBe('ready');
    expect(await entriesNow()).toEqual(before.entries);
    expect(await zipNow()).toEqual(before.zip);
    const outcome = await server.services.handle.db.selectFrom('project_files').select('deid_outcome').where('id', '=', fileId).executeTakeFirstOrThrow();
    expect(JSON.parse(outcome.deid_outcome!)).toMatchObject({ deidentified_by: 'server', instances: { server: 3, browser: 0, refused: 0 } });
  });

  it('de-identifies the DICOM entries of archives inside a delivery (one sent alone, one in a bundle) and deletes the archives', async () => {
    const { id: projectId, key } = await basicProject();
    const delivery: number = (await call(`${server.api}/deliveries`, { method: 'POST', token, json: { studypetitionid: projectId, name: 'CD export' } })).body.data[0].id;
    const zip = archive('zip').data;
    const tgz = archive('tar.gz').data;
    const alone = await createUpload(server.api, token, { size: zip.length, body: zip, metadata: encodeMetadata({ filename: 'study.zip', delivery: String(delivery), relativePath: 'CD/study.zip' }) });
    expect(alone.status).toBe(201);
    const bundle = Buffer.concat([tarMemberHeader({ path: 'CD/study.tar.gz', size: tgz.length, mtimeMs: 1_700_000_000_000 }), tgz, tarPadding(tgz.length), TAR_END]);
    const sentBundle = await createUpload(server.api, token, { size: bundle.length, body: bundle, metadata: encodeMetadata({ filename: 'bundle-1.tar', delivery: String(delivery), bundle: 'tar' }) });
    expect(sentBundle.status).toBe(201);
    const arrivedKeys = (await server.services.handle.db.selectFrom('delivery_files').select('storage_key').where('delivery_id', '=', delivery).execute()).map((m) => m.storage_key);
    expect(arrivedKeys).toHaveLength(2);
    const completed = await call(`${server.api}/deliveries/${delivery}/complete`, { method: 'POST', token });
    const fileId: number = completed.body.data[0].file_id;
    const { entries } = await readyEntries(projectId, fileId);
    const pseudonym = pseudonymOf(PLANTED.id, key);
    const dicomPaths = ['CD/study.tar.gz/DICOM/IM1', 'CD/study.tar.gz/DICOM/IM2', 'CD/study.tar.gz/DICOM/IM3', 'CD/study.zip/DICOM/IM1', 'CD/study.zip/DICOM/IM2', 'CD/study.zip/DICOM/IM3'];
    expect(entries.filter((e) => e.kind === 'dicom').map((e) => e.path).sort()).toEqual(dicomPaths);
    for (const e of entries.filter((x) => x.kind === 'dicom')) expect(e.dicom?.patient_id, e.path).toBe(pseudonym);
    for (const p of ['CD/study.zip/notes.txt', 'CD/study.tar.gz/notes.txt']) expect(entries.find((e) => e.path === p)).toMatchObject({ kind: 'skipped', reason: NOT_DICOM_LEFT_OUT });

    const got = await download(server.api, token, fileId);
    expect(got.status).toBe(200);
    const zipPath = path.join(scratch, `delivery-${fileId}.zip`);
    fs.writeFileSync(zipPath, got.bytes);
    expect(Object.keys(zipFileHashes(zipPath, scratch)).sort()).toEqual(dicomPaths);
    expectNothingPlanted(got.bytes, 'the delivery’s zip');
    // The archive sent alone and the bundle are deleted just after the row turns ready.
    const left = () => storedFiles(server.config.dataDir).filter((k) => arrivedKeys.includes(k));
    for (let i = 0; i < 100 && left().length > 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(left()).toEqual([]);
  });

  it('leaves no planted value anywhere under DATA_DIR, in the database or in the answers', async () => {
    for (const file of filesUnder(server.config.dataDir)) expectNothingPlanted(fs.readFileSync(file), file);
    expectNothingPlanted(await everyRowAsText(server.services.handle.db, dialect), 'the database');
    expectNothingPlanted(answers.join('\n'), 'the answers');
  });

  it('keeps an archive as it is in a project with the profile off', async () => {
    const project = await makeProject(server.services, company);
    const sent = await upload(server.api, token, archive('zip'), project.id);
    const row = await waitProcessed(project.id, sent.body.data[0].id);
    expect(row.processing.status).toBe('ready');
    const entries = (await contentsOf(row.id)).body.data.entries as { path: string; dicom: { patient_id: string } | null }[];
    expect(entries.find((e) => e.path === 'DICOM/IM1')?.dicom).toMatchObject({ patient_id: PLANTED.id });
  });
});
