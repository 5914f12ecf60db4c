// Issue 31, item 1: a full disk must not take down every company. New uploads stop while free
// space is below MIN_FREE_BYTES (a stubbed reading here, a real small filesystem in
// small-filesystem.test.ts), /ready says so, and everything else keeps working.
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LOW_STORAGE_MESSAGE, type FreeSpace } from '../../src/quota/index.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, tusFiles } from '../tus.js';
import { dicomFixture, download, storedFiles, upload } from '../uploads.js';

const CT = dicomFixture('s01_CT_small.dcm');
const GiB = 1024 ** 3;

describe.each(dialects())('storage headroom on %s', (dialect) => {
  let server: TestServer;
  let percent: TestServer;
  /** What the injected reading answers for every folder. */
  let reading: FreeSpace;
  let token: string;
  let projectId: number;

  beforeAll(async () => {
    const freeSpace = () => Promise.resolve(reading);
    [server, percent] = await Promise.all([
      startTestServer(dialect, { MIN_FREE_BYTES: String(2 * GiB) }, { freeSpace }),
      startTestServer(dialect, { MIN_FREE_BYTES: '10%' }, { freeSpace }),
    ]);
    const company = await makeCompany(server.services);
    const user = await makeUser(server.services, { company, role: ROLES.CompanyAdmin });
    token = await login(server.api, user.username, PASSWORD);
    projectId = (await makeProject(server.services, company)).id;
  });
  afterAll(() => Promise.all([server.close(), percent.close()]));
  beforeEach(() => {
    reading = { free: 50 * GiB, total: 100 * GiB };
  });

  it('takes uploads and answers ready while free space is above MIN_FREE_BYTES', async () => {
    expect((await upload(server.api, token, { name: 'a.dcm', data: CT }, projectId)).status).toBe(201);
    expect(await call(`${server.api}/ready`)).toMatchObject({ status: 200, body: { status: 'ready' } });
  });

  it('refuses new uploads with 507 and words when free space falls below it, storing nothing', async () => {
    reading = { free: 2 * GiB - 1, total: 100 * GiB };
    const stored = storedFiles(server.config.dataDir).length;
    const multipart = await upload(server.api, token, { name: 'b.dcm', data: CT }, projectId);
    expect(multipart).toMatchObject({ status: 507, body: { message: LOW_STORAGE_MESSAGE } });
    expect(LOW_STORAGE_MESSAGE).toMatch(/^The server is low on storage, .*Try the upload again later/);
    const tus = await createUpload(server.api, token, { name: 'b.dcm', projectId, size: CT.length });
    expect(tus).toMatchObject({ status: 507, body: { message: LOW_STORAGE_MESSAGE } });
    const delivery = (await call(`${server.api}/deliveries`, { token, json: { studypetitionid: projectId, name: 'Folder' } })).body.data[0].id as number;
    const deliveryFile = await createUpload(server.api, token, {
      size: CT.length,
      body: CT,
      metadata: `filename ${Buffer.from('a.dcm').toString('base64')},delivery ${Buffer.from(String(delivery)).toString('base64')},relativePath ${Buffer.from('A/a.dcm').toString('base64')}`,
    });
    expect(deliveryFile).toMatchObject({ status: 507, body: { message: LOW_STORAGE_MESSAGE } });
    expect(storedFiles(server.config.dataDir).length).toBe(stored);
    expect(tusFiles(server.config.dataDir)).toEqual([]);
    expect(await server.services.handle.db.selectFrom('tus_uploads').selectAll().execute()).toEqual([]);
  });

  it('keeps sign-in, listing, downloads, project creation and deletes working while low on storage', async () => {
    const kept = await upload(server.api, token, { name: 'kept.dcm', data: CT }, projectId);
    reading = { free: 1024, total: 100 * GiB };
    const other = await makeUser(server.services);
    const otherToken = await login(server.api, other.username, PASSWORD);
    expect((await call(`${server.api}/study-petitions`, { token: otherToken })).status).toBe(200);
    expect((await download(server.api, token, kept.body.data[0].id)).bytes.equals(CT)).toBe(true);
    expect((await call(`${server.api}/study-petitions`, { token, json: { name: 'While full' } })).status).toBe(201);
    expect((await call(`${server.api}/study-petitions-files-delete/${kept.body.data[0].id}`, { method: 'PUT', token })).status).toBe(200);
  });

  it('answers /ready with 503 and the reason while low on storage, and 200 again once space is back', async () => {
    reading = { free: GiB, total: 100 * GiB };
    const low = await call(`${server.api}/ready`);
    expect(low.status).toBe(503);
    expect(low.body.message).toBe(
      'Low on storage: 1.00 GB free where the portal keeps its data, below MIN_FREE_BYTES (2.00 GB); new uploads are refused until space is freed or added',
    );
    reading = { free: 3 * GiB, total: 100 * GiB };
    expect((await call(`${server.api}/ready`)).status).toBe(200);
    expect((await upload(server.api, token, { name: 'c.dcm', data: CT }, projectId)).status).toBe(201);
  });

  it('reads MIN_FREE_BYTES as a share of the filesystem when it ends in %', async () => {
    const company = await makeCompany(percent.services);
    const user = await makeUser(percent.services, { company });
    const userToken = await login(percent.api, user.username, PASSWORD);
    const project = await makeProject(percent.services, company);
    reading = { free: 9 * GiB, total: 100 * GiB };
    expect((await upload(percent.api, userToken, { name: 'a.dcm', data: CT }, project.id)).status).toBe(507);
    expect((await call(`${percent.api}/ready`)).body.message).toMatch(/below MIN_FREE_BYTES \(10\.00 GB\)/);
    reading = { free: 11 * GiB, total: 100 * GiB };
    expect((await upload(percent.api, userToken, { name: 'a.dcm', data: CT }, project.id)).status).toBe(201);
  });
});
