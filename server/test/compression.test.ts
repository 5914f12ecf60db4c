// JSON answers over a KiB are compressed for clients that accept it; downloads (whole, ranged, a
// delivery's zip) and tus answers are sent as they are, with their Content-Length and Range.
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCompany, makeProject, makeUser } from './factories.js';
import { login } from './http.js';
import { startTestServer, type TestServer } from './server.js';
import { createUpload, encodeMetadata, headUpload, patchUpload, uploadUrl } from './tus.js';
import { dicomFixture, upload } from './uploads.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as they came over the wire, not decoded. */
  bytes: Buffer;
}

function raw(url: string, headers: Record<string, string>, method = 'GET'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('compression of answers', () => {
  let server: TestServer;
  let token: string;
  let projectId: number;
  const dicom = dicomFixture('s01_CT_small.dcm');
  const as = (encoding: string, more: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, 'accept-encoding': encoding, ...more });

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    const company = await makeCompany(server.services);
    const user = await makeUser(server.services, { company, role: ROLES.CompanyAdmin });
    token = await login(server.api, user.username, user.password);
    projectId = (await makeProject(server.services, company)).id;
    // Enough projects that their list is well over a KiB of JSON.
    for (let i = 0; i < 30; i += 1) await makeProject(server.services, company, `Cohort number ${i} of a long-running study`);
  });
  afterAll(() => server.close());

  it('compresses a JSON answer over a KiB with br or gzip, as the client asks, to the same JSON', async () => {
    const plain = await raw(`${server.api}/study-petitions`, as('identity'));
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.bytes.length).toBeGreaterThan(1024);
    const json = JSON.parse(plain.bytes.toString()) as unknown;

    const gzip = await raw(`${server.api}/study-petitions`, as('gzip'));
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.vary).toMatch(/accept-encoding/i);
    expect(gzip.bytes.length).toBeLessThan(plain.bytes.length / 3);
    expect(JSON.parse(gunzipSync(gzip.bytes).toString())).toEqual(json);

    const br = await raw(`${server.api}/study-petitions`, as('gzip, deflate, br'));
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.bytes).toString())).toEqual(json);
  });

  it('sends a small JSON answer as it is', async () => {
    const health = await raw(`${server.api}/health`, { 'accept-encoding': 'gzip, br' });
    expect(health.status).toBe(200);
    expect(health.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(health.bytes.toString())).toMatchObject({ status: 'ok' });
  });

  it('sends downloads as stored, whole or ranged, with their Content-Length, whatever the client accepts', async () => {
    // A DICOM file named without an extension is sent as application/octet-stream.
    for (const name of ['ct.dcm', 'IM0001']) {
      const stored = await upload(server.api, token, { name, data: dicom }, projectId);
      expect(stored.status).toBe(201);
      const url = `${server.api}/download-study-petitions-files/${stored.body.data[0].id}`;
      const whole = await raw(url, as('gzip, br'));
      expect(whole.status, name).toBe(200);
      expect(whole.headers['content-encoding'], name).toBeUndefined();
      expect(whole.headers['content-length'], name).toBe(String(dicom.length));
      expect(whole.bytes.equals(dicom), name).toBe(true);

      const ranged = await raw(url, as('gzip, br', { range: 'bytes=100-1123' }));
      expect(ranged.status, name).toBe(206);
      expect(ranged.headers['content-encoding'], name).toBeUndefined();
      expect(ranged.headers['content-range'], name).toBe(`bytes 100-1123/${dicom.length}`);
      expect(ranged.headers['content-length'], name).toBe('1024');
      expect(ranged.bytes.equals(dicom.subarray(100, 1124)), name).toBe(true);

      const head = await raw(url, as('gzip, br'), 'HEAD');
      expect(head.headers['content-encoding'], name).toBeUndefined();
      expect(head.headers['content-length'], name).toBe(String(dicom.length));
    }
  });

  it('sends a delivery’s zip and the tus answers without encoding', async () => {
    const delivery = await (
      await fetch(`${server.api}/deliveries`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ studypetitionid: projectId, name: 'CD export' }),
      })
    ).json() as { data: { id: number }[] };
    const deliveryId = delivery.data[0]!.id;
    const created = await createUpload(server.api, token, {
      size: dicom.length,
      metadata: encodeMetadata({ filename: 'IM1', delivery: String(deliveryId), relativePath: 'DICOM/IM1' }),
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-encoding')).toBeNull();
    const url = uploadUrl(server.api, created);
    expect((await headUpload(url, token)).headers.get('content-encoding')).toBeNull();
    const patched = await patchUpload(url, token, 0, dicom);
    expect(patched.status).toBe(204);
    expect(patched.headers.get('content-encoding')).toBeNull();

    const completed = await fetch(`${server.api}/deliveries/${deliveryId}/complete`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    const folderId = ((await completed.json()) as { data: { file_id: number }[] }).data[0]!.file_id;
    const zip = await raw(`${server.api}/download-study-petitions-files/${folderId}`, as('gzip, br'));
    expect(zip.status).toBe(200);
    expect(zip.headers['content-type']).toBe('application/zip');
    expect(zip.headers['content-encoding']).toBeUndefined();
    expect(zip.bytes.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
  });
});
