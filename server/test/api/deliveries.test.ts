// Deliveries (a folder sent as one unit) through a real listening server: created open, filled by
// tus uploads naming it, completed into one 'folder' row processed by one job, downloaded as a zip.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { agoIso } from '../clock.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, deleteUpload, encodeMetadata, headUpload, patchUpload, tusFiles, uploadUrl } from '../tus.js';
import { dicomFixture, download, listFiles, makeArchive, sha256, storedFiles, waitProcessed as waitProcessedIn, zipFileHashes } from '../uploads.js';

const README = Buffer.from('Exported by the imaging workstation. Open DICOMDIR with any DICOM viewer.\n');

/** A CD export as partners send it: a DICOMDIR, extensionless files in subfolders, a text file, and a zip. */
function cdExport(scratch: string): Record<string, Buffer> {
  const zip = makeArchive(
    scratch,
    { IM6: dicomFixture('s06_CT_series5N_3023.dcm'), IM7: dicomFixture('s07_CT_series5N_3353.dcm') },
    'zip -q -0 series.zip IM6 IM7',
    'series.zip',
  );
  return {
    DICOMDIR: dicomFixture('s40_DICOMDIR'),
    'DICOM/ST1/SE1/IM1': dicomFixture('s03_CT_series5N_2062.dcm'),
    'DICOM/ST1/SE1/IM2': dicomFixture('s04_CT_series5N_2392.dcm'),
    'DICOM/ST1/SE1/IM3': dicomFixture('s05_CT_series5N_2693.dcm'),
    'DICOM/ST2/SE1/IM1': dicomFixture('s10_MR_small_implicit.dcm'),
    'README.TXT': README,
    'EXTRA/series.zip': zip,
    // Damaged: a zip's first bytes, then nothing a zip reader can use.
    'EXTRA/BROKEN.zip': Buffer.concat([zip.subarray(0, 30), Buffer.alloc(2000, 0x5a)]),
  };
}

/** A delivery's file sent whole with its creation through a raw request, so a test decides when each byte goes. */
function wholeFileRequest(api: string, token: string, delivery: number, relativePath: string, data: Buffer) {
  const request = http.request(`${api}/uploads`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'tus-resumable': '1.0.0',
      'upload-length': String(data.length),
      'content-length': String(data.length),
      'content-type': 'application/offset+octet-stream',
      'upload-metadata': encodeMetadata({ delivery: String(delivery), relativePath }),
    },
  });
  const answer = new Promise<{ status: number; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    request.once('response', (response) => {
      response.resume();
      response.once('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
    });
    request.once('error', reject);
  });
  return { request, answer };
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i += 1) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the server did not get there');
}

function deliveryApi(server: () => TestServer) {
  const api = () => server().api;
  return {
    create: (token: string, studypetitionid: number, name = 'CD export 2024-03-01') =>
      call(`${api()}/deliveries`, { method: 'POST', token, json: { studypetitionid, name } }),
    complete: (token: string, id: number) => call(`${api()}/deliveries/${id}/complete`, { method: 'POST', token }),
    get: (token: string, id: number) => call(`${api()}/deliveries/${id}`, { token }),
    /** One file of the delivery, every byte sent with the creation (or only `sendBytes` of them). */
    send: (token: string, delivery: number | string, relativePath: string | undefined, data: Buffer, sendBytes = data.length) => {
      const meta: Record<string, string> = { filename: (relativePath ?? 'x').split('/').pop() || 'x', delivery: String(delivery) };
      if (relativePath !== undefined) meta.relativePath = relativePath;
      return createUpload(api(), token, { size: data.length, body: data.subarray(0, sendBytes), metadata: encodeMetadata(meta) });
    },
  };
}

describe.each(dialects())('deliveries on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  let readOnly: string;
  let stranger: string;
  let scratch: string;
  const deliveries = deliveryApi(() => server);

  beforeAll(async () => {
    server = await startTestServer(dialect, { UPLOAD_MAX_OPEN_PER_USER: '50' }, { jobs: true });
    company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    readOnly = await login(server.api, (await makeUser(server.services, { company, role: ROLES.SysUser })).username, PASSWORD);
    stranger = await login(server.api, (await makeUser(server.services, { company: await makeCompany(server.services) })).username, PASSWORD);
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-deliveries-'));
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const project = () => makeProject(server.services, company);

  const waitProcessed = (projectId: number, fileId: number) => waitProcessedIn(server.api, token, projectId, fileId);

  it('opens a delivery for a writing role of the project’s company only, invisible in the file list', async () => {
    const p = await project();
    const created = await deliveries.create(token, p.id);
    expect(created.status).toBe(201);
    expect(created.body.data[0]).toMatchObject({ name: 'CD export 2024-03-01', status: 'open', studypetitionid: p.id, files: 0, bytes: 0, file_id: null });
    expect(new Date(created.body.data[0].expires_at).getTime()).toBeGreaterThan(Date.now());
    expect((await listFiles(server.api, token, p.id)).body.data).toEqual([]);

    expect(await deliveries.create(readOnly, p.id)).toMatchObject({ status: 403 });
    expect(await deliveries.create(stranger, p.id)).toMatchObject({ status: 404, body: { message: 'Project not found' } });
    expect(await deliveries.create(token, 999_999)).toMatchObject({ status: 404, body: { message: 'Project not found' } });
    expect(await deliveries.create(token, p.id, '')).toMatchObject({ status: 400 });
    expect(await deliveries.create(token, p.id, 'x'.repeat(256))).toMatchObject({ status: 422 });
    // Another company's delivery is as unknown as a missing one.
    expect(await deliveries.get(stranger, created.body.data[0].id)).toMatchObject({ status: 404, body: { message: 'Delivery not found' } });
    expect(await deliveries.complete(stranger, created.body.data[0].id)).toMatchObject({ status: 404, body: { message: 'Delivery not found' } });
  });

  it('refuses a file before any byte: another company’s or unknown delivery 404, unsafe or taken paths 422', async () => {
    const p = await project();
    const id: number = (await deliveries.create(token, p.id)).body.data[0].id;
    const data = dicomFixture('s01_CT_small.dcm');
    expect((await deliveries.send(token, id, 'DICOM/IM1', data)).status).toBe(201);

    expect(await deliveries.send(stranger, id, 'a/IM1', data)).toMatchObject({ status: 404, body: { message: 'Delivery not found' } });
    expect(await deliveries.send(token, 999_999, 'a/IM1', data)).toMatchObject({ status: 404, body: { message: 'Delivery not found' } });
    expect(await deliveries.send(token, 'abc', 'a/IM1', data)).toMatchObject({ status: 404, body: { message: 'Delivery not found' } });
    expect(await deliveries.send(readOnly, id, 'a/IM1', data)).toMatchObject({ status: 403 });
    const refusals: [string | undefined, RegExp][] = [
      [undefined, /relativePath/],
      ['../outside/IM1', /path traversal/],
      ['DICOM/../../IM1', /path traversal/],
      ['/etc/IM1', /absolute path/],
      ['C:/DICOM/IM1', /drive letter/],
      ['DICOM\\IM1', /backslash/],
      ['DICOM/IM\u00011', /control characters/],
      ['DICOM/IM1', /already has a file at "DICOM\/IM1"/],
      ['DICOM/./IM1', /already has a file at "DICOM\/IM1"/],
      ['DICOM', /already has a file at "DICOM"/],
      ['DICOM/IM1/IM2', /already has a file/],
    ];
    for (const [relativePath, message] of refusals) {
      const answer = await deliveries.send(token, id, relativePath, data);
      expect(answer.status, String(relativePath)).toBe(422);
      expect(answer.body.message, String(relativePath)).toMatch(message);
    }
    // Two uploads asking for the same path at once: one is accepted, the other told the path is taken.
    const race = await Promise.all([deliveries.send(token, id, 'RACE/IM1', data, 100), deliveries.send(token, id, 'RACE/IM1', data, 100)]);
    expect(race.map((r) => r.status).sort()).toEqual([201, 422]);
    const raced = race.find((r) => r.status === 201)!;
    expect((await deleteUpload(uploadUrl(server.api, raced), token)).status).toBe(204);
    // A path still arriving is taken too.
    const arriving = await deliveries.send(token, id, 'DICOM/IM2', data, 1000);
    expect(arriving.status).toBe(201);
    expect(await deliveries.send(token, id, 'DICOM/IM2', data)).toMatchObject({ status: 422 });
    expect(tusFiles(server.config.dataDir)).not.toEqual([]);
    expect((await deleteUpload(uploadUrl(server.api, arriving), token)).status).toBe(204);
    expect(tusFiles(server.config.dataDir)).toEqual([]);
    expect((await deliveries.get(token, id)).body.data[0]).toMatchObject({ status: 'open', files: 1, bytes: data.length });
  });

  it('completes only when no file is arriving, queues one job, and refuses files afterwards', async () => {
    const p = await project();
    const id: number = (await deliveries.create(token, p.id)).body.data[0].id;
    expect(await deliveries.complete(token, id)).toMatchObject({ status: 409, body: { message: expect.stringMatching(/no files yet/) } });
    const data = dicomFixture('s01_CT_small.dcm');
    expect((await deliveries.send(token, id, 'IM1', data)).status).toBe(201);
    const partial = await deliveries.send(token, id, 'IM2', data, 2000);
    expect(await deliveries.complete(token, id)).toMatchObject({ status: 409, body: { message: expect.stringMatching(/1 file of this delivery is still arriving/) } });
    expect(await deliveries.complete(readOnly, id)).toMatchObject({ status: 403 });
    // The rest of it arrives: now it can be completed.
    expect((await patchUpload(uploadUrl(server.api, partial), token, 2000, data.subarray(2000))).status).toBe(204);

    const completed = await deliveries.complete(token, id);
    expect(completed.status).toBe(200);
    expect(completed.body.data[0]).toMatchObject({ status: 'completed', files: 2, bytes: 2 * data.length, expires_at: null });
    const fileId: number = completed.body.data[0].file_id;
    const jobs = await server.services.handle.db.selectFrom('jobs').selectAll().where('subject', '=', `files/${fileId}`).execute();
    expect(jobs.map((j) => j.name)).toEqual(['process-delivery']);

    expect(await deliveries.complete(token, id)).toMatchObject({ status: 409, body: { message: 'This delivery is already complete' } });
    expect(await deliveries.send(token, id, 'IM3', data)).toMatchObject({ status: 409, body: { message: expect.stringMatching(/already complete/) } });
    expect(tusFiles(server.config.dataDir)).toEqual([]);
    const row = await waitProcessed(p.id, fileId);
    expect(row).toMatchObject({ kind: 'folder', processing: { status: 'ready', summary: { instances: 1, studies: 1 } } });
  });

  it('keeps nothing of a file sent whole with its creation until all of it arrived: completion waits for it, a body cut short leaves its path free', async () => {
    const p = await project();
    const id: number = (await deliveries.create(token, p.id)).body.data[0].id;
    const data = dicomFixture('s01_CT_small.dcm');
    // Taken in front of tus (tus-direct.ts) with the file store; by tus with the shared one (S3).
    const arriving = async () =>
      server.services.deliveries.arrivingHere(id) +
      Number((await server.services.handle.db.selectFrom('tus_uploads').select((eb) => eb.fn.countAll().as('n')).where('delivery_id', '=', id).executeTakeFirstOrThrow()).n);
    const slow = wholeFileRequest(server.api, token, id, 'DICOM/IM1', data);
    slow.request.write(data.subarray(0, 1000));
    await until(async () => (await arriving()) === 1);
    expect(await deliveries.complete(token, id)).toMatchObject({ status: 409, body: { message: expect.stringMatching(/1 file of this delivery is still arriving/) } });
    slow.request.end(data.subarray(1000));
    const answer = await slow.answer;
    // tus's answer to a creation with the whole file: created, every byte there, and where it is.
    expect(answer.status).toBe(201);
    expect(answer.headers).toMatchObject({ 'tus-resumable': '1.0.0', 'upload-offset': String(data.length), location: expect.stringMatching(/^\/api\/v1\/uploads\/[0-9a-f]{32}$/) });
    expect((await headUpload(new URL(answer.headers.location!, server.api).toString(), token)).status).toBe(404);

    // A client that goes away halfway leaves nothing: no file, no record, the path free for the retry.
    const cut = wholeFileRequest(server.api, token, id, 'DICOM/IM2', data);
    cut.request.write(data.subarray(0, 1000));
    await until(async () => (await arriving()) === 1);
    cut.request.destroy();
    await cut.answer.catch(() => undefined);
    await until(async () => (await arriving()) === 0);
    expect(tusFiles(server.config.dataDir)).toEqual([]);
    expect((await deliveries.get(token, id)).body.data[0]).toMatchObject({ files: 1, bytes: data.length });
    expect((await deliveries.send(token, id, 'DICOM/IM2', data)).status).toBe(201);
    expect((await deliveries.complete(token, id)).body.data[0]).toMatchObject({ status: 'completed', files: 2, bytes: 2 * data.length });
  });

  it('refuses to complete a delivery whose file was lost after it arrived, and completes once it is sent again', async () => {
    const p = await project();
    const id: number = (await deliveries.create(token, p.id)).body.data[0].id;
    const data = dicomFixture('s01_CT_small.dcm');
    for (const name of ['DICOM/IM1', 'DICOM/IM2']) expect((await deliveries.send(token, id, name, data)).status).toBe(201);
    // A file arrives without an fsync of its own: a crash of the machine before completion can take it.
    const lost = await server.services.handle.db.selectFrom('delivery_files').selectAll().where('delivery_id', '=', id).where('relative_path', '=', 'DICOM/IM2').executeTakeFirstOrThrow();
    await server.services.storage.delete(lost.storage_key);
    expect(await deliveries.complete(token, id)).toMatchObject({
      status: 409,
      body: { message: '1 file of this delivery was lost when the server stopped ("DICOM/IM2"); send it again, then complete the delivery' },
    });
    expect((await deliveries.get(token, id)).body.data[0]).toMatchObject({ status: 'open', files: 1 });
    expect((await listFiles(server.api, token, p.id)).body.data).toEqual([]);
    expect((await deliveries.send(token, id, 'DICOM/IM2', data)).status).toBe(201);
    const completed = await deliveries.complete(token, id);
    expect(completed.body.data[0]).toMatchObject({ status: 'completed', files: 2, bytes: 2 * data.length });
    const row = await waitProcessed(p.id, completed.body.data[0].file_id);
    expect(row).toMatchObject({ processing: { status: 'ready', summary: { entries: 2, instances: 1, duplicates: 1 } } });
  });

  it('shows a CD export as one row with the sum and one summary, its contents by path, and downloads it as a zip of the same bytes', async () => {
    const p = await project();
    const folder = cdExport(scratch);
    const id: number = (await deliveries.create(token, p.id, 'PATIENT_CD')).body.data[0].id;
    for (const [relativePath, data] of Object.entries(folder)) {
      const sent = await deliveries.send(token, id, relativePath, data);
      expect(sent.status, relativePath).toBe(201);
      // A file of a delivery is not a row of its own.
      expect(sent.headers.get('portal-file-id')).toBeNull();
    }
    expect((await listFiles(server.api, token, p.id)).body.data).toEqual([]);
    const fileId: number = (await deliveries.complete(token, id)).body.data[0].file_id;

    const row = await waitProcessed(p.id, fileId);
    const total = Object.values(folder).reduce((sum, data) => sum + data.length, 0);
    expect((await listFiles(server.api, token, p.id)).body.data).toHaveLength(1);
    expect(row).toMatchObject({
      id: fileId,
      file: 'PATIENT_CD',
      kind: 'folder',
      filesize: total,
      studypetitionid: p.id,
      // Nine entries, each counted once: 6 instances, the DICOMDIR and the README, the broken zip.
      processing: {
        status: 'ready',
        error: null,
        summary: { entries: 9, studies: 2, series: 2, instances: 6, duplicates: 0, in_project: 0, other: 2, dicomdirs: 1, unreadable: 0, skipped: 1 },
      },
    });

    const contents = (await call(`${server.api}/study-petitions-files/${fileId}/contents?limit=500`, { token })).body.data;
    expect(contents.entries.map((e: { path: string }) => e.path).sort()).toEqual(
      [
        'DICOMDIR',
        'DICOM/ST1/SE1/IM1',
        'DICOM/ST1/SE1/IM2',
        'DICOM/ST1/SE1/IM3',
        'DICOM/ST2/SE1/IM1',
        'EXTRA/BROKEN.zip',
        'EXTRA/series.zip/IM6',
        'EXTRA/series.zip/IM7',
        'README.TXT',
      ].sort(),
    );
    const byPath = new Map(contents.entries.map((e: { path: string }) => [e.path, e]));
    expect(byPath.get('DICOM/ST1/SE1/IM1')).toMatchObject({ kind: 'dicom', sha256: sha256(folder['DICOM/ST1/SE1/IM1']!), size: folder['DICOM/ST1/SE1/IM1']!.length });
    expect(byPath.get('README.TXT')).toMatchObject({ kind: 'other' });
    // A damaged archive in the folder is one skipped entry with the reason in words; the rest is ready.
    expect(byPath.get('EXTRA/BROKEN.zip')).toMatchObject({ kind: 'skipped', reason: expect.stringMatching(/damaged or incomplete/) });
    const tree = contents.studies.map((s: { series: { modality: string; instances: number }[] }) => s.series.map((x) => [x.modality, x.instances])).flat();
    expect(tree.sort()).toEqual([['CT', 5], ['MR', 1]]);
    // Each entry downloads as what was sent (one read in place from the zip in the folder).
    for (const entry of (contents.entries as { id: number; path: string; sha256: string | null }[]).filter((e) => e.sha256 !== null)) {
      const response = await fetch(`${server.api}/study-petitions-files/${fileId}/contents/${entry.id}/download`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status, entry.path).toBe(200);
      expect(sha256(Buffer.from(await response.arrayBuffer())), entry.path).toBe(entry.sha256);
    }

    const zip = await download(server.api, token, fileId);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    expect(zip.headers.get('accept-ranges')).toBe('none');
    expect(zip.headers.get('content-disposition')).toMatch(/^attachment; filename="?PATIENT_CD\.zip"?$/);
    fs.writeFileSync(path.join(scratch, 'download.zip'), zip.bytes);
    expect(zipFileHashes(path.join(scratch, 'download.zip'), scratch)).toEqual(Object.fromEntries(Object.entries(folder).map(([name, data]) => [name, sha256(data)])));
    // Members are stored as they are, not compressed.
    const verbose = execFileSync('unzip', ['-v', path.join(scratch, 'download.zip')]).toString();
    expect(verbose).toMatch(/Stored/);
    expect(verbose).not.toMatch(/Defl/);

    // Another company sees none of it.
    expect((await download(server.api, stranger, fileId)).status).toBe(404);
  });

  it('keeps the bidirectional controls of a path out of the delivery: stored, listed and zipped without them', async () => {
    const p = await project();
    const id: number = (await deliveries.create(token, p.id, 'BIDI_CD')).body.data[0].id;
    const data = dicomFixture('s01_CT_small.dcm');
    const inner = makeArchive(scratch, { 'IM\u202E2gpj.dcm': dicomFixture('s10_MR_small_implicit.dcm') }, 'bsdtar -cf ../bidi-inner.tar .', '../bidi-inner.tar');
    expect((await deliveries.send(token, id, 'SE\u2066RIES\u2069/IM\u202E1gpj.dcm', data)).status).toBe(201);
    expect((await deliveries.send(token, id, '\u202E/\u200Finner.tar', inner)).status).toBe(201);
    // Cleaned, it is a path the delivery already has; nothing but controls is no path at all.
    expect(await deliveries.send(token, id, 'SERIES/IM1gpj\u200E.dcm', data)).toMatchObject({ status: 422, body: { message: expect.stringContaining('already has a file at "SERIES/IM1gpj.dcm"') } });
    expect(await deliveries.send(token, id, '\u202E\u2066', data)).toMatchObject({ status: 422 });
    const stored = await server.services.handle.db.selectFrom('delivery_files').select('relative_path').where('delivery_id', '=', id).execute();
    expect(stored.map((r) => r.relative_path).sort()).toEqual(['SERIES/IM1gpj.dcm', 'inner.tar']);

    const fileId: number = (await deliveries.complete(token, id)).body.data[0].file_id;
    expect((await waitProcessed(p.id, fileId)).processing.status).toBe('ready');
    const contents = async () => (await call(`${server.api}/study-petitions-files/${fileId}/contents`, { token })).body.data.entries.map((e: { path: string }) => e.path).sort();
    expect(await contents()).toEqual(['SERIES/IM1gpj.dcm', 'inner.tar/IM2gpj.dcm']);
    const zipNames = async () => {
      const zip = await download(server.api, token, fileId);
      expect(zip.status).toBe(200);
      fs.writeFileSync(path.join(scratch, 'bidi.zip'), zip.bytes);
      return Object.keys(zipFileHashes(path.join(scratch, 'bidi.zip'), scratch)).sort();
    };
    expect(await zipNames()).toEqual(['SERIES/IM1gpj.dcm', 'inner.tar']);

    // Rows recorded before paths were cleaned are shown and zipped cleaned too.
    const db = server.services.handle.db;
    await db.updateTable('delivery_files').set({ relative_path: 'old\u202Egpj.zip' }).where('delivery_id', '=', id).where('relative_path', '=', 'inner.tar').execute();
    await db.updateTable('file_entries').set({ path: 'old\u2067/IM\u202E2gpj.dcm' }).where('file_id', '=', fileId).where('path', '=', 'inner.tar/IM2gpj.dcm').execute();
    expect(await zipNames()).toEqual(['SERIES/IM1gpj.dcm', 'oldgpj.zip']);
    expect(await contents()).toEqual(['SERIES/IM1gpj.dcm', 'old/IM2gpj.dcm']);
  });

  it('deletes the row and everything it holds: no list row, no download, no contents', async () => {
    const p = await project();
    const id: number = (await deliveries.create(token, p.id)).body.data[0].id;
    expect((await deliveries.send(token, id, 'a/IM1', dicomFixture('s01_CT_small.dcm'))).status).toBe(201);
    const fileId: number = (await deliveries.complete(token, id)).body.data[0].file_id;
    await waitProcessed(p.id, fileId);
    expect(await call(`${server.api}/study-petitions-files-delete/${fileId}`, { method: 'PUT', token: readOnly })).toMatchObject({ status: 403 });
    const deleted = await call(`${server.api}/study-petitions-files-delete/${fileId}`, { method: 'PUT', token });
    expect(deleted).toMatchObject({ status: 200, body: { data: [{ id: fileId, kind: 'folder' }] } });
    expect((await listFiles(server.api, token, p.id)).body.data).toEqual([]);
    expect((await download(server.api, token, fileId)).status).toBe(404);
    expect((await call(`${server.api}/study-petitions-files/${fileId}/contents`, { token })).status).toBe(404);
  });
});

describe.each(dialects())('deliveries without a running worker, on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  let projectId: number;
  const deliveries = deliveryApi(() => server);
  beforeAll(async () => {
    server = await startTestServer(dialect, { UPLOAD_EXPIRY_SECONDS: '1' });
    const company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    projectId = (await makeProject(server.services, company)).id;
  });
  afterAll(() => server.close());

  it('cancels the delivery’s one job when its row is deleted', async () => {
    const id: number = (await deliveries.create(token, projectId)).body.data[0].id;
    expect((await deliveries.send(token, id, 'IM1', dicomFixture('s01_CT_small.dcm'))).status).toBe(201);
    const fileId: number = (await deliveries.complete(token, id)).body.data[0].file_id;
    expect((await call(`${server.api}/study-petitions-files-delete/${fileId}`, { method: 'PUT', token })).status).toBe(200);
    const jobs = await server.services.handle.db.selectFrom('jobs').selectAll().where('subject', '=', `files/${fileId}`).execute();
    expect(jobs.map((j) => [j.name, j.status])).toEqual([['process-delivery', 'cancelled']]);
  });

  it('removes an open delivery left alone once it expires, with every file it holds and every file still arriving', async () => {
    const id: number = (await deliveries.create(token, projectId)).body.data[0].id;
    const data = dicomFixture('s01_CT_small.dcm');
    expect((await deliveries.send(token, id, 'IM1', data)).status).toBe(201);
    expect((await deliveries.send(token, id, 'IM2', data, 1000)).status).toBe(201);
    const db = server.services.handle.db;
    await db.updateTable('deliveries').set({ expires_at: agoIso(100) }).where('id', '=', id).execute();
    await db.updateTable('tus_uploads').set({ expires_at: agoIso(100) }).execute();
    expect(await deliveries.get(token, id)).toMatchObject({ status: 404 });
    expect(await deliveries.complete(token, id)).toMatchObject({ status: 404 });
    expect(await deliveries.send(token, id, 'IM3', data)).toMatchObject({ status: 404 });

    expect(await server.services.deliveries.sweepExpired((upload) => server.services.tusUploads.remove(upload))).toBe(1);
    expect(await db.selectFrom('deliveries').selectAll().where('state', '=', 'open').execute()).toEqual([]);
    expect(await db.selectFrom('delivery_files').selectAll().where('delivery_id', '=', id).execute()).toEqual([]);
    expect(await db.selectFrom('tus_uploads').selectAll().execute()).toEqual([]);
    expect(tusFiles(server.config.dataDir)).toEqual([]);
    // What is stored is exactly the files of the delivery completed above, nothing of this one.
    const kept = await db.selectFrom('delivery_files').select('storage_key').execute();
    expect(kept).toHaveLength(1);
    expect(storedFiles(server.config.dataDir)).toEqual(kept.map((k) => k.storage_key));
    expect(await db.selectFrom('pending_uploads').selectAll().execute()).toEqual([]);
  });
});
