// The resumable upload endpoint (tus 1.0 at /api/v1/uploads) through a real listening server.
import { ROLES, type TRole } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, deleteUpload, headUpload, patchUpload, tusFiles, uploadUrl } from '../tus.js';
import { dicomFixture, download, expectNoLeftovers, listFiles, sha256 } from '../uploads.js';

const CT = dicomFixture('s01_CT_small.dcm');
const MAX = 2 * 1024 * 1024;

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
    expect(await server.services.handle.db.selectFrom('tus_uploads').selectAll().execute()).toEqual([]);
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
    // The finished upload is gone as an upload.
    expect((await headUpload(url, user())).status).toBe(404);
    const jobs = await server.services.handle.db.selectFrom('jobs').select('subject').where('subject', '=', `files/${fileId}`).execute();
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
});
