// GET /upload-settings (docs/api.md, 'Upload settings'): the chunk size the web app cuts a tus
// upload into is the operator's UPLOAD_CHUNK_BYTES, told to any signed-in user.
import { ROLES, type TRole } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../databases.js';
import { makeCompany, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';

async function tokenOf(server: TestServer, role: TRole): Promise<string> {
  const user = await makeUser(server.services, { company: await makeCompany(server.services), role });
  return login(server.api, user.username, PASSWORD);
}

describe.each(dialects())('upload settings on %s', (dialect) => {
  let server: TestServer;
  let configured: TestServer;

  beforeAll(async () => {
    [server, configured] = await Promise.all([startTestServer(dialect), startTestServer(dialect, { UPLOAD_CHUNK_BYTES: String(64 * 1024 ** 2) })]);
  });
  afterAll(() => Promise.all([server.close(), configured.close()]));

  it('answers 401 without a session', async () => {
    expect((await call(`${server.api}/upload-settings`)).status).toBe(401);
  });

  it('tells every role the default chunk of 256 MiB', async () => {
    for (const role of [ROLES.User, ROLES.CompanyAdmin, ROLES.SysUser, ROLES.SysAdmin] as TRole[]) {
      const answer = await call(`${server.api}/upload-settings`, { token: await tokenOf(server, role) });
      expect(answer, `role ${role}`).toMatchObject({ status: 200, body: { data: [{ chunk_bytes: 256 * 1024 * 1024 }] } });
    }
  });

  it('tells the chunk size UPLOAD_CHUNK_BYTES sets', async () => {
    const answer = await call(`${configured.api}/upload-settings`, { token: await tokenOf(configured, ROLES.User) });
    expect(answer).toMatchObject({ status: 200, body: { data: [{ chunk_bytes: 64 * 1024 * 1024 }] } });
  });
});
