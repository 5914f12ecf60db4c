// POST /study-petitions/{id}/files/duplicates (issue 36, item 3): which files about to be sent the
// project already holds, by SHA-256, on both databases.
import { createHash } from 'node:crypto';
import { DUPLICATES_MAX_HASHES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { dicomFixture, upload } from '../uploads.js';

const sha256 = (data: Buffer | Uint8Array) => createHash('sha256').update(data).digest('hex');

describe.each(dialects())('duplicates before sending on %s', (dialect) => {
  let server: TestServer;
  let project: ProjectRow;
  let otherProject: ProjectRow;
  let token: string;
  let foreignToken: string;
  const ct = dicomFixture('s01_CT_small.dcm');
  const cr = dicomFixture('s15_CR_6154');
  const gone = Buffer.from(ct.subarray(0, ct.length - 1));
  let first: number;

  const ask = (projectId: number | string, body: unknown, as = token) => call(`${server.api}/study-petitions/${projectId}/files/duplicates`, { method: 'POST', token: as, json: body });

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const company = await makeCompany(server.services);
    const user = await makeUser(server.services, { company });
    token = await login(server.api, user.username, PASSWORD);
    project = await makeProject(server.services, company);
    otherProject = await makeProject(server.services, company);
    const foreignCompany = await makeCompany(server.services);
    const foreigner = await makeUser(server.services, { company: foreignCompany });
    foreignToken = await login(server.api, foreigner.username, PASSWORD);

    first = (await upload(server.api, token, { name: 'ct.dcm', data: ct }, project.id)).body.data[0].id;
    // A second copy of the same bytes: the answer names the oldest, the one a copy is marked a duplicate of.
    expect((await upload(server.api, token, { name: 'ct-again.dcm', data: ct }, project.id)).status).toBe(201);
    // Deleted: no longer the project's.
    const deleted = (await upload(server.api, token, { name: 'gone.dcm', data: gone }, project.id)).body.data[0].id;
    expect((await call(`${server.api}/study-petitions-files-delete/${deleted}`, { method: 'PUT', token })).status).toBe(200);
    // In another project of the same company: not this project's.
    expect((await upload(server.api, token, { name: 'cr.dcm', data: cr }, otherProject.id)).status).toBe(201);
  });
  afterAll(async () => {
    await server.close();
  });

  it('names the oldest live file for each hash the project holds, once, and leaves out the rest', async () => {
    const unknown = 'a'.repeat(64);
    const answer = await ask(project.id, { sha256: [unknown, sha256(ct), sha256(gone), sha256(cr), sha256(ct)] });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual([{ sha256: sha256(ct), file_id: first, file: 'ct.dcm' }]);
    expect((await ask(otherProject.id, { sha256: [sha256(ct), sha256(cr)] })).body.data.map((d: { file: string }) => d.file)).toEqual(['cr.dcm']);
  });

  it('answers 404 for another company’s project and for one that does not exist, and 401 without a token', async () => {
    const foreign = await ask(project.id, { sha256: [sha256(ct)] }, foreignToken);
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain('ct.dcm');
    expect((await ask(999_999, { sha256: [sha256(ct)] })).status).toBe(404);
    const anonymous = await call(`${server.api}/study-petitions/${project.id}/files/duplicates`, { method: 'POST', json: { sha256: [sha256(ct)] } });
    expect(anonymous.status).toBe(401);
  });

  it('refuses what is not a list of 1 to 1000 lowercase SHA-256 hashes', async () => {
    for (const body of [{ sha256: [] }, { sha256: ['abc'] }, { sha256: [sha256(ct).toUpperCase()] }, { sha256: Array(DUPLICATES_MAX_HASHES + 1).fill(sha256(ct)) }, {}]) {
      const answer = await ask(project.id, body);
      expect(answer.status, JSON.stringify(body).slice(0, 60)).toBe(400);
    }
    expect((await ask(project.id, { sha256: Array(DUPLICATES_MAX_HASHES).fill(sha256(ct)) })).body.data).toHaveLength(1);
    expect((await ask('abc', { sha256: [sha256(ct)] })).status).toBe(404);
  });
});
