// A folder's small files sent to a delivery packed in tar bundles (contract/src/delivery-bundle.ts),
// through a real listening server: bundles made with the contract's packer (as the web app makes
// them) and with bsdtar, beside a file sent alone; every refusal of a member is the refusal a file
// sent alone at that path gets, and nothing of a refused bundle is kept.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleSize, TAR_END, tarMemberHeader, tarPadding } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Dialect } from '../../src/db/database.js';
import type { CompanyRow } from '../../src/db/schema.js';
import { passDeadlines } from '../clock.js';
import { createTestDatabase, dialects, type TestDatabase } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startServerProcess } from '../processes.js';
import { startTestServer, type TestServer } from '../server.js';
import type { TestStorageBackend } from '../storage-registry.js';
import { createUpload, encodeMetadata, headUpload, patchUpload, tusFiles, uploadUrl } from '../tus.js';
import { dicomFixture, download, listFiles, makeArchive, sha256, storedFiles, thumbnailsDrawn, waitProcessed as waitProcessedIn, zipFileHashes } from '../uploads.js';

type Folder = Record<string, Buffer>;

/** A bundle as the web app packs it: each file's header, its bytes, its padding, then the end. */
function pack(files: Folder): Buffer {
  const members = Object.entries(files).map(([p, data]) => ({ path: p, size: data.length, mtimeMs: 1_700_000_000_000 }));
  const parts: Uint8Array[] = [];
  for (const member of members) parts.push(tarMemberHeader(member), files[member.path]!, tarPadding(member.size));
  parts.push(TAR_END);
  const bundle = Buffer.concat(parts);
  expect(bundle.length).toBe(bundleSize(members));
  return bundle;
}

/** A bundle made by bsdtar from a folder written to disk (its folders' own entries included). */
function bsdtarBundle(scratch: string, files: Folder, extra?: (dir: string) => void): Buffer {
  const dir = fs.mkdtempSync(path.join(scratch, 'folder-'));
  for (const [p, data] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    fs.writeFileSync(path.join(dir, p), data);
  }
  extra?.(dir);
  const out = path.join(scratch, `${path.basename(dir)}.tar`);
  execFileSync('bsdtar', ['-cf', out, '-C', dir, '.']);
  return fs.readFileSync(out);
}

const CT = ['s03_CT_series5N_2062.dcm', 's04_CT_series5N_2392.dcm', 's05_CT_series5N_2693.dcm', 's06_CT_series5N_3023.dcm'];

// Both databases on the filesystem; S3 with the shared tus store (several API nodes), where a
// bundle arrives as chunk objects and its files are read as ranges of an S3 object; and S3 with
// unfinished uploads on the node (one API node), where a file sent whole with its creation is taken
// in front of tus and put to the bucket from memory, and a bundle from the node's tus file.
const SETUPS: [string, Dialect, TestStorageBackend, Record<string, string>][] = [
  ...dialects().map((dialect): [string, Dialect, TestStorageBackend, Record<string, string>] => [dialect, dialect, 'filesystem', {}]),
  ['postgres, S3 and the shared tus store', 'postgres', 's3', { TUS_STORE: 'shared' }],
  ['sqlite, S3 and tus files on the node', 'sqlite', 's3', { TUS_STORE: 'file' }],
];

describe.each(SETUPS)('delivery bundles on %s', (_name, dialect, storage, env) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  let stranger: string;
  let scratch: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { UPLOAD_MAX_OPEN_PER_USER: '50', ...env }, { jobs: true, storage });
    company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    stranger = await login(server.api, (await makeUser(server.services, { company: await makeCompany(server.services) })).username, PASSWORD);
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bundles-'));
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  async function newDelivery(name = 'CD export') {
    const p = await makeProject(server.services, company);
    const id: number = (await call(`${server.api}/deliveries`, { method: 'POST', token, json: { studypetitionid: p.id, name } })).body.data[0].id;
    return { projectId: p.id, id };
  }
  const complete = (id: number, as = token) => call(`${server.api}/deliveries/${id}/complete`, { method: 'POST', token: as });
  const getDelivery = (id: number) => call(`${server.api}/deliveries/${id}`, { token });

  /** A bundle by tus: its creation with the first `first` bytes (all by default). */
  function sendBundle(delivery: number, bundle: Buffer, opts: { first?: number; as?: string; meta?: Record<string, string> } = {}) {
    const metadata = encodeMetadata(opts.meta ?? { filename: 'bundle-1.tar', delivery: String(delivery), bundle: 'tar' });
    return createUpload(server.api, opts.as ?? token, { size: bundle.length, body: bundle.subarray(0, opts.first ?? bundle.length), metadata });
  }
  const sendAlone = (delivery: number, relativePath: string, data: Buffer) =>
    createUpload(server.api, token, { size: data.length, body: data, metadata: encodeMetadata({ filename: path.posix.basename(relativePath), delivery: String(delivery), relativePath }) });

  const waitProcessed = (projectId: number, fileId: number) => waitProcessedIn(server.api, token, projectId, fileId);

  const membersOf = (id: number) => server.services.handle.db.selectFrom('delivery_files').selectAll().where('delivery_id', '=', id).orderBy('relative_path').execute();

  it('takes bundles (the contract’s packer and bsdtar) beside a file sent alone: one row, every path in its contents, a zip of the same bytes', async () => {
    const { projectId, id } = await newDelivery('PATIENT_CD');
    const packed: Folder = {
      DICOMDIR: dicomFixture('s40_DICOMDIR'),
      'DICOM/ST1/SE1/IM1': dicomFixture(CT[0]!),
      'DICOM/ST1/SE1/IM2': dicomFixture(CT[1]!),
      // A path ustar cannot hold travels in a pax record.
      [`DICOM/ST1/${'LONG'.repeat(30)}/IM3`]: dicomFixture(CT[2]!),
      'README.TXT': Buffer.from('Exported by the imaging workstation.\n'),
      // An archive in a bundle is opened as a nested archive; its stored entries are read in place, inside the bundle.
      'EXTRA/series.zip': makeArchive(scratch, { IM7: dicomFixture('s07_CT_series5N_3353.dcm') }, 'zip -q -0 series.zip IM7', 'series.zip'),
    };
    const byBsdtar: Folder = { 'DICOM/ST2/SE1/IM1': dicomFixture('s10_MR_small_implicit.dcm'), 'DICOM/ST2/SE1/IM2': dicomFixture(CT[3]!) };
    const alone: Folder = { 'DICOM/ST3/IM1': dicomFixture('s01_CT_small.dcm') };

    // Not a row of its own, and nothing to resume: the bundle's files are the delivery's now.
    const packedBundle = pack(packed);
    const first = await sendBundle(id, packedBundle);
    expect(first.status).toBe(201);
    expect(first.headers.get('portal-file-id')).toBeNull();
    expect((await headUpload(uploadUrl(server.api, first), token)).status).toBe(404);
    const bsdtarred = bsdtarBundle(scratch, byBsdtar);
    expect((await sendBundle(id, bsdtarred, { meta: { filename: 'bundle-2.tar', delivery: String(id), bundle: 'tar' } })).status).toBe(201);
    expect((await sendAlone(id, 'DICOM/ST3/IM1', alone['DICOM/ST3/IM1']!)).status).toBe(201);

    const folder = { ...packed, ...byBsdtar, ...alone };
    const total = Object.values(folder).reduce((sum, data) => sum + data.length, 0);
    expect((await getDelivery(id)).body.data[0]).toMatchObject({ status: 'open', files: 9, bytes: total });
    // The bundle's files share one stored object, each at its offset; the file sent alone has its own.
    const members = await membersOf(id);
    expect(new Set(members.map((m) => m.storage_key)).size).toBe(3);
    expect(members.filter((m) => m.storage_offset === null).map((m) => m.relative_path)).toEqual(['DICOM/ST3/IM1']);
    for (const m of members) expect(m.sha256, m.relative_path).toBe(sha256(folder[m.relative_path]!));
    // Each bundle's object is recorded whole too (what moving the install copies and checks).
    const bundles = await server.services.handle.db.selectFrom('delivery_bundles').select(['size', 'sha256']).where('delivery_id', '=', id).execute();
    expect(bundles.map((b) => [Number(b.size), b.sha256]).sort()).toEqual([[packedBundle.length, sha256(packedBundle)], [bsdtarred.length, sha256(bsdtarred)]].sort());

    const completed = await complete(id);
    expect(completed.body.data[0]).toMatchObject({ status: 'completed', files: 9, bytes: total });
    const fileId: number = completed.body.data[0].file_id;
    const row = await waitProcessed(projectId, fileId);
    expect((await listFiles(server.api, token, projectId)).body.data).toHaveLength(1);
    expect(row).toMatchObject({
      kind: 'folder',
      file: 'PATIENT_CD',
      filesize: total,
      processing: { status: 'ready', summary: { entries: 9, studies: 3, instances: 7, duplicates: 0, dicomdirs: 1, other: 2, unreadable: 0, skipped: 0 } },
    });

    const contents = (await call(`${server.api}/study-petitions-files/${fileId}/contents?limit=500`, { token })).body.data;
    const inZip = dicomFixture('s07_CT_series5N_3353.dcm');
    expect(contents.entries.map((e: { path: string }) => e.path).sort()).toEqual([...Object.keys(folder).filter((p) => !p.endsWith('.zip')), 'EXTRA/series.zip/IM7'].sort());
    const tree = contents.studies.flatMap((s: { series: { modality: string; instances: number }[] }) => s.series.map((x) => `${x.modality}:${x.instances}`));
    expect(tree.sort()).toEqual(['CT:1', 'CT:5', 'MR:1']);
    // Each entry downloads as what was sent: its range of the bundle.
    for (const entry of contents.entries as { id: number; path: string; sha256: string }[]) {
      const response = await fetch(`${server.api}/study-petitions-files/${fileId}/contents/${entry.id}/download`, { headers: { authorization: `Bearer ${token}` } });
      expect(sha256(Buffer.from(await response.arrayBuffer())), entry.path).toBe(sha256(folder[entry.path] ?? inZip));
    }

    const zip = await download(server.api, token, fileId);
    expect(zip.status).toBe(200);
    fs.writeFileSync(path.join(scratch, 'download.zip'), zip.bytes);
    expect(zipFileHashes(path.join(scratch, 'download.zip'), scratch)).toEqual(Object.fromEntries(Object.entries(folder).map(([name, data]) => [name, sha256(data)])));

    expect((await download(server.api, stranger, fileId)).status).toBe(404);
    expect((await call(`${server.api}/study-petitions-files-delete/${fileId}`, { method: 'PUT', token })).status).toBe(200);
    expect((await listFiles(server.api, token, projectId)).body.data).toEqual([]);
    expect((await download(server.api, token, fileId)).status).toBe(404);
  });

  it('records a bundle’s files exactly as the same files sent alone: kinds, reasons in words, SHA-256, DICOM fields, summary', async () => {
    // Every DICOM fixture, and what is not an instance: DICOM without SOP Instance UID, a header cut
    // short, a header longer than the first read, a DICOMDIR, text, archives (one
    // whole, one damaged: a skipped file of the delivery).
    const noSop = path.join(scratch, 'nosop.dcm');
    fs.copyFileSync(path.join(import.meta.dirname, '../fixtures/dicom/s01_CT_small.dcm'), noSop);
    // Written as a bare data set, so no meta header names the instance either.
    execFileSync('dcmodify', ['-nb', '-ea', '(0008,0018)', noSop]);
    execFileSync('dcmconv', ['-F', noSop, noSop]);
    const big = path.join(scratch, 'big.dcm');
    fs.copyFileSync(path.join(import.meta.dirname, '../fixtures/dicom/s03_CT_series5N_2062.dcm'), big);
    fs.writeFileSync(path.join(scratch, 'comment.txt'), 'x'.repeat(300_000));
    execFileSync('sh', ['-c', `chmod u+w big.dcm && dcmodify -nb -if "(0020,4000)=comment.txt" big.dcm`], { cwd: scratch });
    const fixtures = fs.readdirSync(path.join(import.meta.dirname, '../fixtures/dicom')).filter((name) => /^s\d\d_/.test(name));
    const series = makeArchive(scratch, { IM1: dicomFixture(CT[0]!), 'SUB/IM2': fs.readFileSync(noSop) }, 'zip -q -r series.zip .', 'series.zip');
    const folder: Folder = {
      ...Object.fromEntries(fixtures.map((name) => [`FIXTURES/${name}`, dicomFixture(name)])),
      'ODD/NOSOP': fs.readFileSync(noSop),
      'ODD/CUT': dicomFixture(CT[1]!).subarray(0, 700),
      'ODD/BIG': fs.readFileSync(big),
      'ODD/NOTES.TXT': Buffer.from('Exported by the imaging workstation.\n'),
      'ODD/series.zip': series,
      'ODD/damaged.zip': series.subarray(0, 200),
      // A copy of an instance: a duplicate within the delivery.
      'ODD/COPY': dicomFixture(CT[0]!),
    };
    expect(fixtures.length).toBeGreaterThan(15);

    async function processedEntries(send: (id: number) => Promise<void>) {
      const { projectId, id } = await newDelivery();
      await send(id);
      const fileId: number = (await complete(id)).body.data[0].file_id;
      const row = await waitProcessed(projectId, fileId);
      const entries = await server.services.handle.db
        .selectFrom('file_entries')
        .selectAll()
        .where('file_id', '=', fileId)
        .orderBy('seq')
        .execute();
      // Where the bytes are differs (a bundle's range, or a file's own object); what was found does not.
      return { processing: row.processing, entries: entries.map(({ id: _id, file_id: _file, storage_key: _key, storage_offset: _offset, ...found }) => found) };
    }
    const paths = Object.keys(folder).sort();
    const alone = await processedEntries(async (id) => {
      for (const p of paths) expect((await sendAlone(id, p, folder[p]!)).status, p).toBe(201);
    });
    const bundled = await processedEntries(async (id) => {
      expect((await sendBundle(id, pack(Object.fromEntries(paths.map((p) => [p, folder[p]!]))))).status).toBe(201);
    });

    expect(bundled).toEqual(alone);
    expect(bundled.processing.status).toBe('ready');
    const byPath = new Map(bundled.entries.map((e) => [e.path, e]));
    expect(byPath.get('ODD/NOSOP')).toMatchObject({ kind: 'dicom', reason: 'no SOP Instance UID' });
    expect(byPath.get('ODD/CUT')?.reason).toMatch(/^truncated or damaged DICOM header/);
    const original = byPath.get('FIXTURES/s03_CT_series5N_2062.dcm')!;
    expect(original.sop_instance_uid).not.toBeNull();
    expect(byPath.get('ODD/BIG')).toMatchObject({ kind: 'dicom', reason: null, sop_instance_uid: original.sop_instance_uid, rows: original.rows });
    expect(byPath.get('ODD/NOTES.TXT')).toMatchObject({ kind: 'other', reason: null });
    expect(byPath.get('ODD/series.zip/SUB/IM2')).toMatchObject({ kind: 'dicom', reason: 'no SOP Instance UID' });
    expect(byPath.get('ODD/damaged.zip')).toMatchObject({ kind: 'skipped' });
    // Copies of a fixture's instance: COPY and the zip's IM1 byte for byte (duplicates); BIG and CUT
    // (its SOP Instance UID is in its first bytes) with other bytes, conflicts (issue 35).
    expect(bundled.processing.summary).toMatchObject({ duplicates: 2, conflicts: 2, unreadable: 3, skipped: 1 });
  });

  it('refuses a bundle whose member a file sent alone at that path would be refused, naming it, and keeps nothing of it', async () => {
    const { id } = await newDelivery();
    const data = dicomFixture('s01_CT_small.dcm');
    expect((await sendAlone(id, 'DICOM/IM1', data)).status).toBe(201);
    expect((await sendBundle(id, pack({ 'B/IM1': data, 'B/IM2': data }))).status).toBe(201);
    // Earlier deliveries' thumbnails are stored by jobs of their own: let them end before counting objects.
    await thumbnailsDrawn(server.services.handle.db);
    const before = { files: await membersOf(id), stored: storedFiles(server.config.dataDir).sort() };

    const symlinked = bsdtarBundle(scratch, { 'L/IM1': data }, (dir) => fs.symlinkSync('IM1', path.join(dir, 'L', 'IM2')));
    const refusals: [string, Buffer, RegExp][] = [
      ['a path out of the folder', pack({ 'OK/IM1': data, '../x': data }), /^The path "\.\.\/x" cannot be accepted \(path traversal/],
      ['an absolute path', pack({ '/etc/IM1': data }), /^The path "\/etc\/IM1" cannot be accepted \(absolute path\)/],
      ['a symbolic link', symlinked, /"\.\/L\/IM2", which is a symbolic link; a bundle may hold only files/],
      ['a path taken by a file sent alone', pack({ 'NEW/IM1': data, 'DICOM/IM1': data }), /^The delivery already has a file at "DICOM\/IM1"/],
      ['a folder taken by a file', pack({ 'DICOM/IM1/IM2': data }), /already has a file at "DICOM\/IM1\/IM2"/],
      ['a path taken by an earlier bundle', pack({ 'B/IM2': data }), /^The delivery already has a file at "B\/IM2"/],
      ['the same path twice in one bundle', pack({ 'C/IM1': data, 'C/./IM1': data }), /already has a file at "C\/IM1"/],
    ];
    for (const [what, bundle, message] of refusals) {
      const answer = await sendBundle(id, bundle);
      expect(answer.status, what).toBe(422);
      expect(answer.body.message, what).toMatch(message);
    }
    // An empty file is refused as it is alone (415), named so the web app sends the others again without it.
    const empty = await sendBundle(id, pack({ 'E/IM1': data, 'E/EMPTY': Buffer.alloc(0) }));
    expect(empty).toMatchObject({ status: 415, body: { message: 'The file "E/EMPTY" is empty; leave it out and send the others again' } });
    expect((await sendAlone(id, 'E/EMPTY', Buffer.alloc(0))).status).toBe(415);
    // The same refusal a file sent alone at that path gets.
    expect((await sendAlone(id, '../x', data)).body.message).toBe((await sendBundle(id, pack({ '../x': data }))).body.message);

    // A tar cut short: inside its second file's bytes, and just before its end marker.
    const whole = pack({ 'T/IM1': data, 'T/IM2': data });
    const secondData = 512 + data.length + tarPadding(data.length).length + 512;
    for (const cut of [secondData + 100, whole.length - TAR_END.length]) {
      const answer = await sendBundle(id, whole.subarray(0, cut));
      expect(answer.status).toBe(422);
      expect(answer.body.message).toMatch(/^The bundle ends before the end of "T\/IM2", so none of its files were kept/);
    }
    const notTar = await sendBundle(id, Buffer.concat([data, Buffer.alloc(1024)]));
    expect(notTar).toMatchObject({ status: 422, body: { message: expect.stringMatching(/not a tar file/) } });

    // Nothing of any refused bundle: no file, no object, no upload.
    expect(await membersOf(id)).toEqual(before.files);
    expect(storedFiles(server.config.dataDir).sort()).toEqual(before.stored);
    expect(tusFiles(server.config.dataDir)).toEqual([]);
    expect(await server.services.handle.db.selectFrom('tus_uploads').selectAll().where('delivery_id', '=', id).execute()).toEqual([]);
  });

  it('refuses a bundle before any byte like a file of the delivery: another company’s 404, completed 409, metadata that is not one bundle 422', async () => {
    const { id } = await newDelivery();
    const bundle = pack({ IM1: dicomFixture('s01_CT_small.dcm') });
    expect(await sendBundle(id, bundle, { as: stranger })).toMatchObject({ status: 404, body: { message: 'Delivery not found' } });
    const meta = (extra: Record<string, string>) => ({ meta: { filename: 'b.tar', delivery: String(id), ...extra } });
    expect(await sendBundle(id, bundle, meta({ bundle: 'tar', relativePath: 'IM1' }))).toMatchObject({ status: 422, body: { message: expect.stringMatching(/either the path of one file \(relativePath\) or a bundle/) } });
    expect(await sendBundle(id, bundle, meta({}))).toMatchObject({ status: 422, body: { message: expect.stringMatching(/relativePath.*bundle=tar/) } });
    expect(await sendBundle(id, bundle, meta({ bundle: 'zip' }))).toMatchObject({ status: 422, body: { message: expect.stringMatching(/bundle=tar/) } });
    expect(await sendBundle(id, bundle, { meta: { filename: 'b.zip', delivery: String(id), bundle: 'tar' } })).toMatchObject({ status: 422, body: { message: expect.stringMatching(/ending in \.tar/) } });
    expect(tusFiles(server.config.dataDir)).toEqual([]);

    expect((await sendBundle(id, bundle)).status).toBe(201);
    expect((await complete(id)).status).toBe(200);
    expect(await sendBundle(id, pack({ IM2: dicomFixture('s01_CT_small.dcm') }))).toMatchObject({ status: 409, body: { message: expect.stringMatching(/already complete/) } });
  });

  it('resumes a bundle interrupted mid-way from the offset the server has, and completion waits for it', async () => {
    const { projectId, id } = await newDelivery();
    const folder: Folder = Object.fromEntries(CT.map((name, i) => [`SE1/IM${i + 1}`, dicomFixture(name)]));
    const bundle = pack(folder);
    const created = await sendBundle(id, bundle, { first: 3000 });
    expect(created.status).toBe(201);
    const url = uploadUrl(server.api, created);
    expect(await complete(id)).toMatchObject({ status: 409, body: { message: expect.stringMatching(/1 file of this delivery is still arriving/) } });
    const head = await headUpload(url, token);
    const offset = Number(head.headers.get('upload-offset'));
    expect(offset).toBe(3000);
    const half = Math.floor(bundle.length / 2);
    expect((await patchUpload(url, token, offset, bundle.subarray(offset, half))).status).toBe(204);
    expect((await getDelivery(id)).body.data[0]).toMatchObject({ files: 0 });
    const last = await patchUpload(url, token, half, bundle.subarray(half));
    expect(last.status, JSON.stringify(last.body)).toBe(204);
    expect((await getDelivery(id)).body.data[0]).toMatchObject({ files: 4, bytes: Object.values(folder).reduce((s, d) => s + d.length, 0) });
    const fileId: number = (await complete(id)).body.data[0].file_id;
    expect(await waitProcessed(projectId, fileId)).toMatchObject({ processing: { status: 'ready', summary: { entries: 4, instances: 4 } } });
  });
});

describe.each(dialects())('a bundle when the server is killed, on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrated: true });
  });
  afterAll(() => database.drop());

  it('leaves nothing of a bundle cut off by a killed server once its delivery expired', async () => {
    const env = { DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'Bundle!Kill-pw1', UPLOAD_EXPIRY_SECONDS: '2' };
    const first = await startServerProcess(env);
    const api = `${first.url}/api/v1`;
    const token = await login(api, 'root', env.ADMIN_PASSWORD);
    const project = (await call(`${api}/study-petitions`, { token, json: { name: 'Killed', valid: true, status: 'Pendant' } })).body.data[0];
    const id: number = (await call(`${api}/deliveries`, { method: 'POST', token, json: { studypetitionid: project.id, name: 'CD' } })).body.data[0].id;
    const data = dicomFixture('s01_CT_small.dcm');
    const done = pack({ IM1: data });
    expect((await createUpload(api, token, { size: done.length, body: done, metadata: encodeMetadata({ filename: 'a.tar', delivery: String(id), bundle: 'tar' }) })).status).toBe(201);
    const bundle = pack({ IM2: data, IM3: data });
    const cut = await createUpload(api, token, { size: bundle.length, body: bundle.subarray(0, 5000), metadata: encodeMetadata({ filename: 'b.tar', delivery: String(id), bundle: 'tar' }) });
    expect(cut.status).toBe(201);
    expect(tusFiles(database.dataDir)).not.toEqual([]);
    expect(storedFiles(database.dataDir)).toHaveLength(1);
    first.child.kill('SIGKILL');
    await first.waitForExit();
    await passDeadlines(database, 'deliveries', 'expires_at');
    await passDeadlines(database, 'tus_uploads', 'expires_at');

    const second = await startServerProcess(env);
    try {
      expect(tusFiles(database.dataDir)).toEqual([]);
      expect(storedFiles(database.dataDir)).toEqual([]);
      const handle = openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
      try {
        expect(await handle.db.selectFrom('deliveries').selectAll().execute()).toEqual([]);
        expect(await handle.db.selectFrom('delivery_files').selectAll().execute()).toEqual([]);
        expect(await handle.db.selectFrom('tus_uploads').selectAll().execute()).toEqual([]);
        expect(await handle.db.selectFrom('pending_uploads').selectAll().execute()).toEqual([]);
      } finally {
        await handle.close();
      }
    } finally {
      second.child.kill('SIGTERM');
      await second.waitForExit();
    }
  });
});
