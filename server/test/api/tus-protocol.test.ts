// What a tus 1.0 client relies on besides moving bytes (tus.test.ts): discovery, the version
// check, the protocol headers on every answer, and a finished upload that stays findable so a
// client that lost the last answer does not send the file again.
import { ROLES } from '@portal/contract';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, deleteUpload, headUpload, patchUpload, tusFiles, uploadUrl, type TusAnswer } from '../tus.js';
import { dicomFixture, download, listFiles, sha256 } from '../uploads.js';

const CT = dicomFixture('s01_CT_small.dcm');
const MAX = 2 * 1024 * 1024;
const WRONG_TYPE = 'Send the bytes of an upload with Content-Type: application/offset+octet-stream';

describe.each(dialects())('the tus protocol at /api/v1/uploads, on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  let reader: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { MAX_UPLOAD_BYTES: String(MAX), UPLOAD_MAX_OPEN_PER_USER: '2' });
    company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    reader = await login(server.api, (await makeUser(server.services, { company, role: ROLES.SysUser })).username, PASSWORD);
  });
  afterAll(() => server.close());

  const project = () => makeProject(server.services, company);
  const fileRows = async (projectId: number) =>
    server.services.handle.db.selectFrom('project_files').select('id').where('project_id', '=', projectId).execute();
  const send = async (url: string, init: RequestInit): Promise<TusAnswer> => {
    const response = await fetch(url, init);
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };

  it('answers OPTIONS without a token with what it speaks', async () => {
    const answer = await fetch(`${server.api}/uploads`, { method: 'OPTIONS' });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('tus-version')).toBe('1.0.0');
    expect(answer.headers.get('tus-resumable')).toBe('1.0.0');
    expect(answer.headers.get('tus-extension')!.split(',').sort()).toEqual(['creation', 'creation-with-upload', 'expiration', 'termination']);
    expect(answer.headers.get('tus-max-size')).toBe(String(MAX));
  });

  it('answers a Tus-Resumable it does not speak 412 with Tus-Version, before anything is stored', async () => {
    const p = await project();
    const url = uploadUrl(server.api, await createUpload(server.api, token, { name: 'slice.dcm', projectId: p.id, size: CT.length }));
    const old = { 'tus-resumable': '0.2.2', authorization: `Bearer ${token}` };
    const answers = [
      await createUpload(server.api, token, { name: 'slice.dcm', projectId: p.id, size: CT.length, body: CT, headers: { 'tus-resumable': '0.2.2' } }),
      await send(url, { method: 'HEAD', headers: old }),
      await send(url, { method: 'PATCH', headers: { ...old, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, body: new Uint8Array(CT) }),
      await send(url, { method: 'DELETE', headers: old }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(412);
      expect(answer.headers.get('tus-version')).toBe('1.0.0');
      expect(answer.headers.get('tus-resumable')).toBe('1.0.0');
    }
    expect(answers[0]!.body).toEqual({ message: 'This server speaks tus 1.0.0 only (Tus-Version), not 0.2.2. Send Tus-Resumable: 1.0.0 with every upload request' });
    expect((await headUpload(url, token)).headers.get('upload-offset')).toBe('0');
    expect(await fileRows(p.id)).toEqual([]);
    expect((await deleteUpload(url, token)).status).toBe(204);
  });

  it('carries Tus-Resumable on every answer, refusals of the session and errors included', async () => {
    const p = await project();
    const url = uploadUrl(server.api, await createUpload(server.api, token, { name: 'slice.dcm', projectId: p.id, size: CT.length }));
    const unknown = `${server.api}/uploads/${'0'.repeat(32)}`;
    const answers: [number, TusAnswer][] = [
      [401, await createUpload(server.api, undefined, { name: 'a.dcm', projectId: p.id, size: 10 })],
      [401, await headUpload(url, undefined)],
      [401, await patchUpload(url, undefined, 0, CT)],
      [401, await deleteUpload(url, undefined)],
      [403, await createUpload(server.api, reader, { name: 'a.dcm', projectId: p.id, size: 10 })],
      [404, await createUpload(server.api, token, { name: 'a.dcm', projectId: 999_999, size: 10 })],
      [404, await headUpload(unknown, token)],
      [404, await patchUpload(unknown, token, 0, CT)],
      [400, await createUpload(server.api, token, { name: 'a.dcm', size: 10 })],
      [413, await createUpload(server.api, token, { name: 'a.dcm', projectId: p.id, size: MAX + 1 })],
      [409, await patchUpload(url, token, 5, CT.subarray(5, 10))],
      [412, await send(url, { method: 'HEAD', headers: { authorization: `Bearer ${token}` } })],
    ];
    for (const [status, answer] of answers) {
      expect(answer.status).toBe(status);
      expect(answer.headers.get('tus-resumable'), `${status} ${JSON.stringify(answer.body)}`).toBe('1.0.0');
    }
    expect((await deleteUpload(url, token)).status).toBe(204);
  });

  it('refuses a PATCH of another type with 415 saying which type it expects, storing nothing', async () => {
    const p = await project();
    const url = uploadUrl(server.api, await createUpload(server.api, token, { name: 'slice.dcm', projectId: p.id, size: CT.length }));
    const patch = (headers: Record<string, string>, body: Uint8Array | string) =>
      send(url, { method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'tus-resumable': '1.0.0', 'upload-offset': '0', ...headers }, body });
    for (const answer of [
      await patch({ 'content-type': 'application/octet-stream' }, new Uint8Array(CT)),
      await patch({ 'content-type': 'text/plain' }, 'some text'),
      await patch({ 'content-type': 'application/json' }, '{"a":1}'),
      await patch({}, new Uint8Array(CT)),
    ]) {
      expect(answer).toMatchObject({ status: 415, body: { message: WRONG_TYPE } });
      expect(answer.headers.get('tus-resumable')).toBe('1.0.0');
    }
    expect((await headUpload(url, token)).headers.get('upload-offset')).toBe('0');
    expect((await deleteUpload(url, token)).status).toBe(204);
  });

  describe('a finished upload', () => {
    it('answers HEAD with its whole length and its file, and a resent last PATCH makes no second file', async () => {
      const p = await project();
      const url = uploadUrl(server.api, await createUpload(server.api, token, { name: 'slice.dcm', projectId: p.id, size: CT.length }));
      expect((await patchUpload(url, token, 0, CT.subarray(0, 10_000))).status).toBe(204);
      const last = await patchUpload(url, token, 10_000, CT.subarray(10_000));
      const fileId = last.headers.get('portal-file-id');
      expect(fileId).toMatch(/^\d+$/);

      // The client lost that answer: it asks where the upload stands.
      const head = await headUpload(url, token);
      expect(head.status).toBe(200);
      expect(head.headers.get('upload-offset')).toBe(String(CT.length));
      expect(head.headers.get('upload-length')).toBe(String(CT.length));
      expect(head.headers.get('portal-file-id')).toBe(fileId);
      expect(head.headers.get('tus-resumable')).toBe('1.0.0');
      // Or sends the end again.
      const again = await patchUpload(url, token, CT.length, Buffer.alloc(0));
      expect(again.status).toBe(204);
      expect(again.headers.get('upload-offset')).toBe(String(CT.length));
      expect(again.headers.get('portal-file-id')).toBe(fileId);
      // Or the last chunk itself, from where it started.
      const resent = await patchUpload(url, token, 10_000, CT.subarray(10_000));
      expect(resent).toMatchObject({ status: 409, body: { message: expect.stringContaining('The upload is already complete') } });
      expect(resent.headers.get('upload-offset')).toBe(String(CT.length));

      expect(await fileRows(p.id)).toEqual([{ id: Number(fileId) }]);
      expect(sha256((await download(server.api, token, Number(fileId))).bytes)).toBe(sha256(CT));
      // Its bytes are the file's now: nothing of the upload is kept but its record.
      expect(tusFiles(server.config.dataDir)).toEqual([]);
      // Only its creator learns about it.
      const colleague = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
      expect((await headUpload(url, colleague)).status).toBe(404);
    });

    it('is not counted among unfinished uploads, is forgotten on DELETE (its file stays) and at its expiry', async () => {
      const p = await project();
      const busy = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
      const urls: string[] = [];
      for (const name of ['a.dcm', 'b.dcm']) {
        const created = await createUpload(server.api, busy, { name, projectId: p.id, size: CT.length, body: CT });
        expect(created.status).toBe(201);
        urls.push(uploadUrl(server.api, created));
      }
      // Two finished uploads, a cap of two unfinished ones: a third may start.
      const third = await createUpload(server.api, busy, { name: 'c.dcm', projectId: p.id, size: CT.length });
      expect(third.status).toBe(201);
      expect((await deleteUpload(uploadUrl(server.api, third), busy)).status).toBe(204);

      expect((await headUpload(urls[0]!, busy)).headers.get('upload-offset')).toBe(String(CT.length));
      expect((await deleteUpload(urls[0]!, busy)).status).toBe(204);
      expect((await headUpload(urls[0]!, busy)).status).toBe(404);
      expect(await fileRows(p.id)).toHaveLength(2);

      const id = urls[1]!.split('/').pop()!;
      await server.services.handle.db.updateTable('tus_uploads').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', id).execute();
      expect((await headUpload(urls[1]!, busy)).status).toBe(404);
      expect(await server.services.tusUploads.sweep({ startup: false })).toBe(1);
      expect(await server.services.handle.db.selectFrom('tus_uploads').selectAll().where('id', '=', id).execute()).toEqual([]);
      expect(await fileRows(p.id)).toHaveLength(2);
    });

    it('lets tus-js-client resume an upload whose last answer it lost without sending the file again', async () => {
      const p = await project();
      const url = uploadUrl(server.api, await createUpload(server.api, token, { name: 'slice.dcm', projectId: p.id, size: CT.length, body: CT }));
      const methods: string[] = [];
      let fileId: string | null = null;
      await new Promise<void>((resolve, reject) => {
        new tus.Upload(CT, {
          uploadUrl: url,
          headers: { Authorization: `Bearer ${token}` },
          metadata: { filename: 'slice.dcm', studypetitionid: String(p.id) },
          retryDelays: null,
          onBeforeRequest: (req) => {
            methods.push(req.getMethod());
          },
          onAfterResponse: (_req, res) => {
            fileId = res.getHeader('Portal-File-Id') ?? fileId;
          },
          onSuccess: () => resolve(),
          onError: reject,
        }).start();
      });
      expect(methods).toEqual(['HEAD']);
      expect(fileId).not.toBeNull();
      expect((await listFiles(server.api, token, p.id)).body.data.map((f: { id: number }) => f.id)).toEqual([Number(fileId)]);
    });
  });
});
