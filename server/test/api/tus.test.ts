// The resumable upload endpoint (tus 1.0 at /api/v1/uploads) through a real listening server.
import { ROLES, type TRole } from '@portal/contract';
import { randomBytes } from 'node:crypto';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { agoIso } from '../clock.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, deleteUpload, encodeMetadata, headUpload, patchUpload, tusFiles, uploadUrl } from '../tus.js';
import { dicomFixture, download, expectNoLeftovers, listFiles, sha256, upload, waitProcessed } from '../uploads.js';

const CT = dicomFixture('s01_CT_small.dcm');
const MAX = 2 * 1024 * 1024;
const CR_NO_EXTENSION = dicomFixture('s15_CR_6154');
const DICOMDIR = dicomFixture('s40_DICOMDIR');
const NO_PREAMBLE = dicomFixture('s23_RTSTRUCT_no_preamble_no_meta.dcm');
const TEXT = Buffer.from('These are the release notes of the imaging software, not an image.\n'.repeat(100));
const ACCEPTED = 'Only these kinds of file are accepted: zip, rar, 7z, tar, gz, bz2, xz, lzma, dcm, dicom';

describe.each(dialects())('resumable uploads (tus) on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let other: CompanyRow;
  const tokens = new Map<TRole, string>();
  const user = () => tokens.get(ROLES.User)!;
  let colleague: string;
  let stranger: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { MAX_UPLOAD_BYTES: String(MAX), UPLOAD_MAX_OPEN_PER_USER: '3' });
    company = await makeCompany(server.services);
    other = await makeCompany(server.services);
    for (const role of [ROLES.User, ROLES.SysUser] as TRole[]) {
      const u = await makeUser(server.services, { company, role });
      tokens.set(role, await login(server.api, u.username, PASSWORD));
    }
    colleague = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    stranger = await login(server.api, (await makeUser(server.services, { company: other })).username, PASSWORD);
  });
  afterAll(() => server.close());

  const project = (owner = company) => makeProject(server.services, owner);
  /** Nothing visible, nothing under DATA_DIR, no record: what every refused or ended upload leaves. */
  const expectNothingLeft = async () => {
    expect(tusFiles(server.config.dataDir)).toEqual([]);
    // A finished upload keeps its record, without bytes, until it would have expired.
    expect(await server.services.handle.db.selectFrom('tus_uploads').selectAll().where('state', '<>', 'finished').execute()).toEqual([]);
    await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
  };

  it('receives a file in chunks, shows nothing until the last byte, then commits it like the multipart call', async () => {
    const p = await project();
    const created = await createUpload(server.api, user(), { name: 'slice.dcm', projectId: p.id, size: CT.length });
    expect(created.status).toBe(201);
    expect(created.headers.get('tus-resumable')).toBe('1.0.0');
    expect(created.headers.get('upload-expires')).toBeTruthy();
    const url = uploadUrl(server.api, created);
    expect(url).toMatch(/\/api\/v1\/uploads\/[0-9a-f]{32}$/);

    const first = await patchUpload(url, user(), 0, CT.subarray(0, 10_000));
    expect(first.status).toBe(204);
    expect(first.headers.get('upload-offset')).toBe('10000');
    expect(first.headers.get('portal-file-id')).toBeNull();
    expect((await listFiles(server.api, user(), p.id)).body.data).toEqual([]);
    const head = await headUpload(url, user());
    expect(head).toMatchObject({ status: 200 });
    expect(head.headers.get('upload-offset')).toBe('10000');
    expect(head.headers.get('upload-length')).toBe(String(CT.length));

    const last = await patchUpload(url, user(), 10_000, CT.subarray(10_000));
    expect(last.status).toBe(204);
    const fileId = Number(last.headers.get('portal-file-id'));
    const listed = (await listFiles(server.api, user(), p.id)).body.data;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      id: fileId,
      file: 'slice.dcm',
      filesize: CT.length,
      studypetitionid: p.id,
      sha256: sha256(CT),
      kind: 'dicom',
      processing: { status: 'pending', error: null, summary: null },
    });
    expect(sha256((await download(server.api, user(), fileId)).bytes)).toBe(sha256(CT));
    // The finished upload says so, with its file, instead of being gone (a client that lost the
    // last answer must not send the file again).
    const after = await headUpload(url, user());
    expect(after.status).toBe(200);
    expect(after.headers.get('upload-offset')).toBe(String(CT.length));
    expect(after.headers.get('portal-file-id')).toBe(String(fileId));
    // One processing job (its thumbnails have a job of their own, queued once it is processed).
    const jobs = await server.services.handle.db.selectFrom('jobs').select('subject').where('subject', '=', `files/${fileId}`).where('name', '=', 'process-upload').execute();
    expect(jobs).toHaveLength(1);
    await expectNothingLeft();
  });

  it('commits a creation that carries every byte (creation-with-upload)', async () => {
    const p = await project();
    const created = await createUpload(server.api, user(), { name: 'one-go.dcm', projectId: p.id, size: CT.length, body: CT });
    expect(created.status).toBe(201);
    expect(created.headers.get('upload-offset')).toBe(String(CT.length));
    const fileId = Number(created.headers.get('portal-file-id'));
    expect((await listFiles(server.api, user(), p.id)).body.data.map((f: { id: number }) => f.id)).toEqual([fileId]);
    await expectNothingLeft();
  });

  it('lets only the creator continue, look at or end an upload: anyone else gets 404', async () => {
    const p = await project();
    const created = await createUpload(server.api, user(), { name: 'mine.dcm', projectId: p.id, size: CT.length });
    const url = uploadUrl(server.api, created);
    for (const token of [colleague, stranger, tokens.get(ROLES.SysUser)!]) {
      expect(await headUpload(url, token)).toMatchObject({ status: 404 });
      expect(await patchUpload(url, token, 0, CT.subarray(0, 100))).toMatchObject({ status: 404, body: { message: 'Upload not found' } });
      expect(await deleteUpload(url, token)).toMatchObject({ status: 404, body: { message: 'Upload not found' } });
    }
    for (const call of [headUpload(url, undefined), patchUpload(url, undefined, 0, CT), deleteUpload(url, undefined)]) {
      expect(await call).toMatchObject({ status: 401 });
    }
    expect((await headUpload(url, user())).headers.get('upload-offset')).toBe('0');
    expect(await deleteUpload(url, user())).toMatchObject({ status: 204 });
    await expectNothingLeft();
  });
  describe('refusing a creation before any byte is stored', () => {
    const cases: [string, () => Promise<{ token: string | undefined; projectId: number | string; size?: number }>, number, RegExp | string][] = [
      ['no token', async () => ({ token: undefined, projectId: (await project()).id }), 401, 'Authentication required'],
      ['a dead token', async () => ({ token: 'f'.repeat(64), projectId: (await project()).id }), 401, /./],
      ['a read-only role', async () => ({ token: tokens.get(ROLES.SysUser)!, projectId: (await project()).id }), 403, /permission/],
      ["another company's project", async () => ({ token: user(), projectId: (await project(other)).id }), 404, 'Project not found'],
      ['a project that does not exist', () => Promise.resolve({ token: user(), projectId: 999_999 }), 404, 'Project not found'],
      [
        'a deleted project',
        async () => {
          const p = await project();
          await call(`${server.api}/study-petitions-delete/${p.id}`, { method: 'PUT', token: user() });
          return { token: user(), projectId: p.id };
        },
        404,
        'Project not found',
      ],
      ['an Upload-Length over MAX_UPLOAD_BYTES', async () => ({ token: user(), projectId: (await project()).id, size: MAX + 1 }), 413, /maximum upload size of 2\.00 MB/],
      ['an empty file', async () => ({ token: user(), projectId: (await project()).id, size: 0 }), 415, 'The file is empty'],
    ];
    it.each(cases)('answers %s with its status and {message}, with or without bytes, storing nothing', async (_what, setup, status, message) => {
      const { token, projectId, size } = await setup();
      for (const body of [undefined, CT]) {
        const answer = await createUpload(server.api, token, { name: 'slice.dcm', projectId, size: size ?? CT.length, ...(body ? { body } : {}) });
        expect(answer.status).toBe(status);
        expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
        expect(answer.body.message).toMatch(message);
        expect(answer.headers.get('location')).toBeNull();
        await expectNothingLeft();
      }
    });

    it('refuses malformed creations with 400 in words', async () => {
      const p = await project();
      const send = (headers: Record<string, string>, meta?: string) =>
        createUpload(server.api, user(), { name: 'a.dcm', projectId: p.id, size: 10, headers, ...(meta !== undefined ? { metadata: meta } : {}) });
      expect(await send({}, encodeMetadata({ filename: 'a.dcm' }))).toMatchObject({ status: 400, body: { message: expect.stringContaining('studypetitionid') } });
      expect(await send({}, encodeMetadata({ studypetitionid: String(p.id) }))).toMatchObject({ status: 400, body: { message: 'The file has no name' } });
      expect(await send({}, 'filename !!not-base64')).toMatchObject({ status: 400, body: { message: expect.stringContaining('Upload-Metadata is not valid') } });
      const huge = encodeMetadata({ filename: 'a.dcm', studypetitionid: String(p.id), padding: 'x'.repeat(7000) });
      expect(await send({}, huge)).toMatchObject({ status: 400, body: { message: expect.stringContaining('longer than 8192') } });
      expect(await send({ 'upload-length': 'lots' })).toMatchObject({ status: 400, body: { message: expect.stringContaining('Upload-Length') } });
      expect(await send({ 'upload-concat': 'partial' })).toMatchObject({ status: 400 });
      const long = await createUpload(server.api, user(), { name: `${'n'.repeat(256)}.dcm`, projectId: p.id, size: 10 });
      expect(long).toMatchObject({ status: 422 });
      const noTus = await fetch(`${server.api}/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user()}`, 'upload-length': '10', 'upload-metadata': encodeMetadata({ filename: 'a.dcm', studypetitionid: String(p.id) }) },
      });
      expect(noTus.status).toBe(412);
      expect(await noTus.json()).toEqual({ message: 'Send Tus-Resumable: 1.0.0 with every upload request' });
      await expectNothingLeft();
    });

    it('keeps the base name of a filename sent with a path, as the multipart call does', async () => {
      const p = await project();
      const names = [
        ['../../../../tmp/x.dcm', 'x.dcm'],
        ['C:\\x\\evil.dcm', 'evil.dcm'],
        ['a/b\\..\\c\u202E.dcm', 'c.dcm'],
      ];
      for (const [sent] of names) {
        const created = await createUpload(server.api, user(), { name: sent, projectId: p.id, size: CT.length, body: CT });
        expect(created.status).toBe(201);
        expect((await upload(server.api, user(), { name: sent!, data: CT }, p.id)).status).toBe(201);
      }
      const listed = (await listFiles(server.api, user(), p.id)).body.data.map((f: { file: string }) => f.file);
      expect(listed.sort()).toEqual(names.flatMap(([, kept]) => [kept, kept]).sort());
      for (const onlyPath of ['../', 'a/..', 'C:\\x\\']) {
        expect(await createUpload(server.api, user(), { name: onlyPath, projectId: p.id, size: 10 })).toMatchObject({ status: 400, body: { message: 'The file has no name' } });
      }
      await expectNothingLeft();
    });

    it('keeps the metadata it knows and drops the rest', async () => {
      const p = await project();
      const delivery = await call(`${server.api}/deliveries`, { method: 'POST', token: user(), json: { studypetitionid: p.id, name: 'CD' } });
      const deliveryId = String(delivery.body.data[0].id);
      const metadata = encodeMetadata({ filename: 'a.dcm', studypetitionid: String(p.id), relativePath: 'DICOM/IM1', delivery: deliveryId, colour: 'blue' });
      const url = uploadUrl(server.api, await createUpload(server.api, user(), { size: CT.length, metadata }));
      const kept = (await headUpload(url, user())).headers.get('upload-metadata')!.split(',').map((pair) => pair.split(' ')[0]);
      expect(kept.sort()).toEqual(['delivery', 'filename', 'relativePath', 'studypetitionid']);
      expect((await deleteUpload(url, user())).status).toBe(204);
      await expectNothingLeft();
    });

    it('caps the unfinished uploads of one user, counting again once one ends', async () => {
      const p = await project();
      const busy = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
      const urls: string[] = [];
      for (let i = 0; i < 3; i += 1) urls.push(uploadUrl(server.api, await createUpload(server.api, busy, { name: `${i}.dcm`, projectId: p.id, size: 100 })));
      const refused = await createUpload(server.api, busy, { name: 'more.dcm', projectId: p.id, size: 100, body: CT.subarray(0, 100) });
      expect(refused).toMatchObject({ status: 429, body: { message: expect.stringContaining('You already have 3 unfinished uploads') } });
      // Someone else is not affected.
      const theirs = await createUpload(server.api, user(), { name: 'x.dcm', projectId: p.id, size: 100 });
      expect(theirs.status).toBe(201);
      expect((await deleteUpload(urls[0]!, busy)).status).toBe(204);
      expect((await createUpload(server.api, busy, { name: 'more.dcm', projectId: p.id, size: 100 })).status).toBe(201);
      await server.services.handle.db.deleteFrom('tus_uploads').execute();
      await server.services.tusUploads.sweep({ startup: false });
      await expectNothingLeft();
    });
  });

  describe('what a hostile or broken client sends', () => {
    it('answers a PATCH at the wrong offset 409 and bytes past Upload-Length 413, changing nothing', async () => {
      const p = await project();
      const url = uploadUrl(server.api, await createUpload(server.api, user(), { name: 'slice.dcm', projectId: p.id, size: CT.length }));
      expect((await patchUpload(url, user(), 0, CT.subarray(0, 5000))).status).toBe(204);
      const wrong = await patchUpload(url, user(), 4000, CT.subarray(4000, 9000));
      expect(wrong).toMatchObject({ status: 409, body: { message: expect.stringContaining('ask where it stands (HEAD)') } });
      const past = await patchUpload(url, user(), 5000, Buffer.concat([CT.subarray(5000), Buffer.alloc(10)]));
      expect(past).toMatchObject({ status: 413, body: { message: expect.stringContaining('More bytes were sent than the upload announced') } });
      expect((await headUpload(url, user())).headers.get('upload-offset')).toBe('5000');
      const rest = await patchUpload(url, user(), 5000, CT.subarray(5000));
      expect(rest.status).toBe(204);
      const fileId = Number(rest.headers.get('portal-file-id'));
      expect(sha256((await download(server.api, user(), fileId)).bytes)).toBe(sha256(CT));
      // A repeated final request finds the upload complete: one file, not two.
      const again = await patchUpload(url, user(), CT.length, Buffer.alloc(0));
      expect(again.status).toBe(204);
      expect(again.headers.get('portal-file-id')).toBe(String(fileId));
      expect((await listFiles(server.api, user(), p.id)).body.data).toHaveLength(1);
      await expectNothingLeft();
    });

    it('stores no byte past Upload-Length from a PATCH that announces no length (chunked), answering 413', async () => {
      const p = await project();
      const url = uploadUrl(server.api, await createUpload(server.api, user(), { name: 'slice.dcm', projectId: p.id, size: CT.length }));
      expect((await patchUpload(url, user(), 0, CT.subarray(0, 5000))).status).toBe(204);
      const past = await rawPatch(url, user(), 5000, (req) => req.end(Buffer.concat([CT.subarray(5000), Buffer.alloc(10)])));
      expect(past.status).toBe(413);
      expect(JSON.parse(past.body)).toEqual({ message: 'More bytes were sent than the upload announced (Upload-Length); upload the file again' });
      const offset = Number((await headUpload(url, user())).headers.get('upload-offset'));
      expect(offset).toBeGreaterThanOrEqual(5000);
      expect(offset).toBeLessThanOrEqual(CT.length);
      const rest = await patchUpload(url, user(), offset, CT.subarray(offset));
      expect(rest.status).toBe(204);
      expect(sha256((await download(server.api, user(), Number(rest.headers.get('portal-file-id')))).bytes)).toBe(sha256(CT));
      await expectNothingLeft();
    });

    it('lets a client that lost its PATCH ask where the upload stands: the hanging PATCH ends, keeping what arrived', async () => {
      const p = await project();
      const url = uploadUrl(server.api, await createUpload(server.api, user(), { name: 'slice.dcm', projectId: p.id, size: CT.length }));
      let sent!: () => void;
      const arrived = new Promise<void>((resolve) => (sent = resolve));
      // 6000 bytes of a PATCH announcing all of them, then silence on a connection left open.
      const hanging = rawPatch(url, user(), 0, (req) => {
        req.setHeader('content-length', String(CT.length));
        req.write(CT.subarray(0, 6000), () => setTimeout(sent, 200));
      });
      await arrived;
      const head = await headUpload(url, user());
      expect(head.status).toBe(200);
      expect(head.headers.get('upload-offset')).toBe('6000');
      expect(await hanging).toMatchObject({ status: 204, offset: '6000' });
      const rest = await patchUpload(url, user(), 6000, CT.subarray(6000));
      expect(rest.status).toBe(204);
      expect(sha256((await download(server.api, user(), Number(rest.headers.get('portal-file-id')))).bytes)).toBe(sha256(CT));
      await expectNothingLeft();
    });

    it('refuses a PATCH that is not application/offset+octet-stream or has no Upload-Offset', async () => {
      const p = await project();
      const url = uploadUrl(server.api, await createUpload(server.api, user(), { name: 'slice.dcm', projectId: p.id, size: CT.length }));
      const noOffset = await fetch(url, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${user()}`, 'tus-resumable': '1.0.0', 'content-type': 'application/offset+octet-stream' },
        body: new Uint8Array(10),
      });
      expect(noOffset.status).toBe(400);
      expect(await noOffset.json()).toEqual({ message: 'Send Upload-Offset with the byte the chunk starts at' });
      expect((await deleteUpload(url, user())).status).toBe(204);
      await expectNothingLeft();
    });

    it('ids that were never made, or are not ids, answer 404', async () => {
      for (const id of ['0'.repeat(32), 'abc', '..%2F..%2Fportal.sqlite', `${'a'.repeat(31)}G`]) {
        expect((await headUpload(`${server.api}/uploads/${id}`, user())).status).toBe(404);
        expect(await patchUpload(`${server.api}/uploads/${id}`, user(), 0, CT)).toMatchObject({ status: 404 });
      }
    });

    it('refuses a project deleted while the upload ran, at its next request, and removes the upload', async () => {
      const p = await project();
      const url = uploadUrl(server.api, await createUpload(server.api, user(), { name: 'slice.dcm', projectId: p.id, size: CT.length }));
      expect((await patchUpload(url, user(), 0, CT.subarray(0, 8000))).status).toBe(204);
      await call(`${server.api}/study-petitions-delete/${p.id}`, { method: 'PUT', token: user() });
      expect(await patchUpload(url, user(), 8000, CT.subarray(8000))).toMatchObject({ status: 404, body: { message: 'Project not found' } });
      expect((await headUpload(url, user())).status).toBe(404);
      await expectNothingLeft();
    });
  });

  describe('content', () => {
    it('refuses a .zip whose bytes are not a zip with 415 at its first bytes, leaving nothing', async () => {
      const p = await project();
      const url = uploadUrl(server.api, await createUpload(server.api, user(), { name: 'series.zip', projectId: p.id, size: CT.length }));
      const refused = await patchUpload(url, user(), 0, CT.subarray(0, 20_000));
      expect(refused).toMatchObject({
        status: 415,
        body: { message: 'The file is named .zip but its content is a DICOM file; rename it to .dcm or upload the original file.' },
      });
      expect((await headUpload(url, user())).status).toBe(404);
      expect((await listFiles(server.api, user(), p.id)).body.data).toEqual([]);
      await expectNothingLeft();
    });

    it('refuses at its last byte a small file that is not what its name says, with the multipart message', async () => {
      const p = await project();
      const created = await createUpload(server.api, user(), { name: 'notes.zip', projectId: p.id, size: 300, body: TEXT.subarray(0, 300) });
      expect(created).toMatchObject({ status: 415, body: { message: expect.stringContaining('The file is named .zip but its content is neither an archive nor DICOM') } });
      expect(created.headers.get('location')).toBeNull();
      const multipart = await upload(server.api, user(), { name: 'notes.zip', data: TEXT.subarray(0, 300) }, p.id);
      expect(multipart.body.message).toBe(created.body.message);
      await expectNothingLeft();
    });

    it.each([
      ['s15_CR_6154', CR_NO_EXTENSION],
      ['DICOMDIR', DICOMDIR],
      ['RTSTRUCT', NO_PREAMBLE],
      ['IM000001.ima', CT],
    ])('accepts DICOM named %s by its content, through tus and multipart alike', async (name, data) => {
      const p = await project();
      const created = await createUpload(server.api, user(), { name, projectId: p.id, size: data.length });
      const url = uploadUrl(server.api, created);
      const half = Math.floor(data.length / 2);
      expect((await patchUpload(url, user(), 0, data.subarray(0, half))).status).toBe(204);
      const last = await patchUpload(url, user(), half, data.subarray(half));
      expect(last.status).toBe(204);
      const viaMultipart = await upload(server.api, user(), { name, data }, p.id);
      expect(viaMultipart.status).toBe(201);
      const listed = (await listFiles(server.api, user(), p.id)).body.data;
      expect(listed.map((f: { file: string; kind: string; sha256: string }) => [f.file, f.kind, f.sha256])).toEqual([
        [name, 'dicom', sha256(data)],
        [name, 'dicom', sha256(data)],
      ]);
      await expectNothingLeft();
    });

    it('refuses an extensionless file that is not DICOM with 415 saying what is accepted, through both', async () => {
      const p = await project();
      const created = await createUpload(server.api, user(), { name: 'README', projectId: p.id, size: TEXT.length, body: TEXT });
      expect(created.status).toBe(415);
      expect(created.body.message).toBe(`The content of README is neither an archive nor DICOM. ${ACCEPTED} (and combined names such as .tar.gz, .tgz, .tar.bz2, .tar.xz), and DICOM files under any name (such as DICOMDIR or a name without extension).`);
      const multipart = await upload(server.api, user(), { name: 'README', data: TEXT }, p.id);
      expect(multipart).toMatchObject({ status: 415, body: { message: created.body.message } });
      await expectNothingLeft();
    });
  });

  it('marks a file whose bytes are already in the project as a duplicate of the oldest live copy, on both paths', async () => {
    const p = await project();
    const elsewhere = await project();
    const first = (await upload(server.api, user(), { name: 'a.dcm', data: CT }, p.id)).body.data[0];
    expect(first.duplicate_of).toBeNull();
    const second = await createUpload(server.api, user(), { name: 'b.dcm', projectId: p.id, size: CT.length, body: CT });
    const secondId = Number(second.headers.get('portal-file-id'));
    const third = (await upload(server.api, user(), { name: 'c.dcm', data: CT }, p.id)).body.data[0];
    expect(third.duplicate_of).toBe(first.id);
    // Another project's copy is not a duplicate, nor is other content.
    expect((await upload(server.api, user(), { name: 'a.dcm', data: CT }, elsewhere.id)).body.data[0].duplicate_of).toBeNull();
    expect((await upload(server.api, user(), { name: 'd.dcm', data: NO_PREAMBLE }, p.id)).body.data[0].duplicate_of).toBeNull();
    const marks = async () =>
      Object.fromEntries((await listFiles(server.api, user(), p.id)).body.data.map((f: { id: number; duplicate_of: number | null }) => [f.id, f.duplicate_of]));
    expect(await marks()).toMatchObject({ [first.id]: null, [secondId]: first.id, [third.id]: first.id });
    // Deleting the original hands the mark on to the next live copy.
    await call(`${server.api}/study-petitions-files-delete/${first.id}`, { method: 'PUT', token: user() });
    expect(await marks()).toMatchObject({ [secondId]: null, [third.id]: secondId });
  });
  it('finishes on HEAD an upload whose last bytes were written by a request that died before finishing it', async () => {
    const p = await project();
    const url = uploadUrl(server.api, await createUpload(server.api, user(), { name: 'slice.dcm', projectId: p.id, size: CT.length, body: CT.subarray(0, 9000) }));
    // The bytes land as a PATCH would write them, but no request lives to commit them; tus clients
    // that resume then see the whole length and ask nothing more than HEAD.
    await server.services.tusUploads.store.write(Readable.from([CT.subarray(9000)]), url.split('/').pop()!, 9000);
    const head = await headUpload(url, user());
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe(String(CT.length));
    const fileId = Number(head.headers.get('portal-file-id'));
    expect((await listFiles(server.api, user(), p.id)).body.data).toMatchObject([{ id: fileId, sha256: sha256(CT) }]);
    await expectNothingLeft();
  });

  it('ends an upload on DELETE by its creator, removing every byte it had', async () => {
    const p = await project();
    const url = uploadUrl(server.api, await createUpload(server.api, user(), { name: 'slice.dcm', projectId: p.id, size: CT.length, body: CT.subarray(0, 9000) }));
    expect(tusFiles(server.config.dataDir)).not.toEqual([]);
    expect(await deleteUpload(url, user())).toMatchObject({ status: 204 });
    expect((await headUpload(url, user())).status).toBe(404);
    expect(await patchUpload(url, user(), 9000, CT.subarray(9000))).toMatchObject({ status: 404 });
    expect((await listFiles(server.api, user(), p.id)).body.data).toEqual([]);
    await expectNothingLeft();
  });
});

describe.each(dialects())('resumable uploads that expire, on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  let projectId: number;
  beforeAll(async () => {
    server = await startTestServer(dialect, { UPLOAD_EXPIRY_SECONDS: '1' });
    const company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    projectId = (await makeProject(server.services, company)).id;
  });
  afterAll(() => server.close());

  it('stops answering for an expired upload, and the sweep removes everything of it', async () => {
    const created = await createUpload(server.api, token, { name: 'slice.dcm', projectId, size: CT.length, body: CT.subarray(0, 5000) });
    const url = uploadUrl(server.api, created);
    expect(new Date(created.headers.get('upload-expires')!).getTime()).toBeLessThanOrEqual(Date.now() + 2000);
    await server.services.handle.db.updateTable('tus_uploads').set({ expires_at: agoIso(100) }).execute();
    expect((await headUpload(url, token)).status).toBe(404);
    expect(await patchUpload(url, token, 5000, CT.subarray(5000))).toMatchObject({ status: 404 });
    expect(tusFiles(server.config.dataDir)).not.toEqual([]);
    expect(await server.services.tusUploads.sweep({ startup: false })).toBe(1);
    expect(tusFiles(server.config.dataDir)).toEqual([]);
    expect(await server.services.handle.db.selectFrom('tus_uploads').selectAll().execute()).toEqual([]);
    await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
  });

});

describe.each(dialects())('resumable uploads that stall, on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  let projectId: number;
  beforeAll(async () => {
    server = await startTestServer(dialect, { UPLOAD_IDLE_TIMEOUT_SECONDS: '1' });
    const company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    projectId = (await makeProject(server.services, company)).id;
  });
  afterAll(() => server.close());

  it('answers a PATCH that stalls 408 after the idle timeout, keeping what arrived for the resume', async () => {
    const url = uploadUrl(server.api, await createUpload(server.api, token, { name: 'slice.dcm', projectId, size: CT.length }));
    // 6000 bytes of a declared whole, then silence.
    const answer = await rawPatch(url, token, 0, (req) => req.write(CT.subarray(0, 6000)), CT.length);
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body).message).toContain('No data arrived for 1 seconds, so the upload was paused');
    expect(answer.offset).toBe('6000');
    expect((await headUpload(url, token)).headers.get('upload-offset')).toBe('6000');
    const rest = await patchUpload(url, token, 6000, CT.subarray(6000));
    expect(rest.status).toBe(204);
    const fileId = Number(rest.headers.get('portal-file-id'));
    expect(sha256((await download(server.api, token, fileId)).bytes)).toBe(sha256(CT));
  });
});

describe.each(dialects())('large resumable uploads, on %s', (dialect) => {
  const MiB = 1024 * 1024;
  let server: TestServer;
  let token: string;
  let projectId: number;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    const company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    projectId = (await makeProject(server.services, company)).id;
  });
  afterAll(() => server.close());

  /** Where the upload stands once nothing moves it any more (a cut-off PATCH may still be ending). */
  const settledOffset = async (url: string) => {
    let last = -1;
    for (let tries = 0; tries < 100; tries++) {
      const offset = Number((await headUpload(url, token)).headers.get('upload-offset'));
      if (offset === last) return offset;
      last = offset;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return last;
  };

  const expectStored = async (fileId: number, source: Buffer) => {
    const file = (await listFiles(server.api, token, projectId)).body.data.find((f: { id: number }) => f.id === fileId);
    expect(file).toMatchObject({ filesize: source.length, sha256: sha256(source) });
    expect(sha256((await download(server.api, token, fileId)).bytes)).toBe(sha256(source));
  };

  it('commits the SHA-256 of the bytes stored for a large upload sent in chunks, one of them ended early', async () => {
    // Over WORKER_MIN_BYTES (64 MiB): its SHA-256 is taken on the hash worker as the chunks arrive.
    const source = Buffer.concat([CT, randomBytes(66 * MiB)]);
    const url = uploadUrl(server.api, await createUpload(server.api, token, { name: 'large.dcm', projectId, size: source.length }));
    expect((await patchUpload(url, token, 0, source.subarray(0, 20 * MiB))).status).toBe(204);
    // Ended early: 8 MiB of a chunk declared longer, then silence until the client asks where the
    // upload stands, which ends the PATCH where it is, keeping and counting what arrived.
    let sent!: () => void;
    const arrived = new Promise<void>((resolve) => (sent = resolve));
    const hanging = rawPatch(url, token, 20 * MiB, (req) => req.write(source.subarray(20 * MiB, 28 * MiB), () => setTimeout(sent, 500)), 20 * MiB);
    await arrived;
    const kept = Number((await headUpload(url, token)).headers.get('upload-offset'));
    expect(kept).toBeGreaterThan(20 * MiB);
    expect(await hanging).toMatchObject({ status: 204, offset: String(kept) });
    const rest = await patchUpload(url, token, kept, source.subarray(kept));
    expect(rest.status).toBe(204);
    await expectStored(Number(rest.headers.get('portal-file-id')), source);
  });

  it('commits the SHA-256 of the bytes stored for a large upload whose client went away in the middle of a chunk and resumed', async () => {
    const source = Buffer.concat([CT, randomBytes(66 * MiB)]);
    const url = uploadUrl(server.api, await createUpload(server.api, token, { name: 'large.dcm', projectId, size: source.length }));
    expect((await patchUpload(url, token, 0, source.subarray(0, 50 * MiB))).status).toBe(204);
    await rawPatch(url, token, 50 * MiB, (req) => req.write(source.subarray(50 * MiB, 60 * MiB), () => setTimeout(() => req.destroy(), 300)), 16 * MiB).catch(
      () => undefined,
    );
    const offset = await settledOffset(url);
    expect(offset).toBeGreaterThanOrEqual(50 * MiB);
    const rest = await patchUpload(url, token, offset, source.subarray(offset));
    expect(rest.status).toBe(204);
    await expectStored(Number(rest.headers.get('portal-file-id')), source);
  });
});

describe.each(dialects())('processing of files recognised by content, on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  let company: CompanyRow;
  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { jobs: true });
    company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
  });
  afterAll(() => server.close());

  const processed = (projectId: number, fileId: number) => waitProcessed(server.api, token, projectId, fileId);

  it('indexes an extensionless DICOM file sent through tus like any DICOM upload', async () => {
    const p = await makeProject(server.services, company);
    const created = await createUpload(server.api, token, { name: 'IM000001', projectId: p.id, size: CR_NO_EXTENSION.length, body: CR_NO_EXTENSION });
    const file = await processed(p.id, Number(created.headers.get('portal-file-id')));
    expect(file).toMatchObject({ file: 'IM000001', kind: 'dicom' });
    expect(file.processing).toMatchObject({ status: 'ready', error: null, summary: { studies: 1, series: 1, instances: 1 } });
  });

  it('processes a DICOMDIR to the end without failing it', async () => {
    const p = await makeProject(server.services, company);
    const sent = await upload(server.api, token, { name: 'DICOMDIR', data: DICOMDIR }, p.id);
    const file = await processed(p.id, sent.body.data[0].id);
    expect(file).toMatchObject({ file: 'DICOMDIR', kind: 'dicom', processing: { status: 'ready', error: null } });
  });
});

/** A PATCH written by hand through node:http, for bodies fetch cannot send (no length, or left hanging). */
function rawPatch(
  url: string,
  token: string,
  offset: number,
  send: (req: ClientRequest) => void,
  /** The body's declared length; none: sent chunked. */
  length?: number,
): Promise<{ status: number; body: string; offset: string | undefined }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'PATCH',
        headers: {
          authorization: `Bearer ${token}`,
          'tus-resumable': '1.0.0',
          'upload-offset': String(offset),
          'content-type': 'application/offset+octet-stream',
          ...(length !== undefined ? { 'content-length': String(length) } : {}),
        },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body, offset: res.headers['upload-offset'] as string | undefined }));
      },
    );
    req.on('error', reject);
    send(req);
  });
}
