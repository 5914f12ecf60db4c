// Issue 31, item 1: a company's storage allowance (quota_bytes), set by a SysAdmin and weighed
// before any byte is stored on every upload path, on SQLite and PostgreSQL.
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, encodeMetadata, patchUpload, uploadUrl } from '../tus.js';
import { dicomFixture, expectNoLeftovers, listFiles, storedFiles, upload } from '../uploads.js';

const CT = dicomFixture('s01_CT_small.dcm');
const KB = 1024;

describe.each(dialects())('company storage allowances on %s', (dialect) => {
  let server: TestServer;
  let withDefault: TestServer;
  let admin: string;

  beforeAll(async () => {
    [server, withDefault] = await Promise.all([startTestServer(dialect), startTestServer(dialect, { DEFAULT_COMPANY_QUOTA_BYTES: String(10 * KB) })]);
    const sysAdmin = await makeUser(server.services, { role: ROLES.SysAdmin });
    admin = await login(server.api, sysAdmin.username, PASSWORD);
  });
  afterAll(() => Promise.all([server.close(), withDefault.close()]));

  /** A company with a user and a project, and the allowance a SysAdmin set for it. */
  async function companyWithQuota(quotaBytes: number | null) {
    const company = await makeCompany(server.services);
    const user = await makeUser(server.services, { company });
    const token = await login(server.api, user.username, PASSWORD);
    const project = await makeProject(server.services, company);
    const set = await call(`${server.api}/admin/companies/${company.id}`, { method: 'PUT', token: admin, json: { quota_bytes: quotaBytes } });
    expect(set.status).toBe(200);
    return { company, token, project };
  }

  const companyAnswer = async (company: CompanyRow, token: string) => (await call(`${server.api}/company/${company.id}`, { token })).body.data[0];

  it('lets a SysAdmin set and clear an allowance, and every company answer carries it with the bytes used', async () => {
    const { company, token, project } = await companyWithQuota(5 * CT.length);
    expect(await companyAnswer(company, token)).toMatchObject({ quota_bytes: 5 * CT.length, used_bytes: 0 });
    expect((await upload(server.api, token, { name: 'a.dcm', data: CT }, project.id)).status).toBe(201);
    expect(await companyAnswer(company, token)).toMatchObject({ quota_bytes: 5 * CT.length, used_bytes: CT.length });
    const listed = await call(`${server.api}/admin/companies?q=${encodeURIComponent(company.companyname)}`, { token: admin });
    expect(listed.body.data).toEqual([expect.objectContaining({ id: company.id, quota_bytes: 5 * CT.length, used_bytes: CT.length })]);

    const cleared = await call(`${server.api}/admin/companies/${company.id}`, { method: 'PUT', token: admin, json: { quota_bytes: null } });
    expect(cleared.body.data[0]).toMatchObject({ companyname: company.companyname, quota_bytes: null, used_bytes: CT.length });
    const audit = await call(`${server.api}/admin/audit?action=company.changed`, { token: admin });
    expect(audit.body.data.some((row: { details: Record<string, unknown> }) => row.details.quota_bytes_to === null && row.details.quota_bytes_from === 5 * CT.length)).toBe(true);
  });

  it('refuses an allowance that is not a whole number of bytes, and lets only a SysAdmin set one', async () => {
    const { company, token } = await companyWithQuota(null);
    for (const quota of [-1, 1.5, '100']) {
      const answer = await call(`${server.api}/admin/companies/${company.id}`, { method: 'PUT', token: admin, json: { quota_bytes: quota } });
      expect(answer.status, String(quota)).toBe(400);
      expect(answer.body.message).toMatch(/storage allowance/);
    }
    expect((await call(`${server.api}/admin/companies/${company.id}`, { method: 'PUT', token: admin, json: {} })).status).toBe(400);
    expect((await call(`${server.api}/admin/companies/${company.id}`, { method: 'PUT', token, json: { quota_bytes: null } })).status).toBe(403);
  });

  it('gives a new company DEFAULT_COMPANY_QUOTA_BYTES, and no limit when it is unset', async () => {
    const sysAdmin = await makeUser(withDefault.services, { role: ROLES.SysAdmin });
    const token = await login(withDefault.api, sysAdmin.username, PASSWORD);
    const created = await call(`${withDefault.api}/admin/companies`, { token, json: { companyname: 'Limited by default' } });
    expect(created.body.data[0]).toMatchObject({ quota_bytes: 10 * KB, used_bytes: 0 });
    const unlimited = await call(`${server.api}/admin/companies`, { token: admin, json: { companyname: 'Unlimited by default' } });
    expect(unlimited.body.data[0]).toMatchObject({ quota_bytes: null, used_bytes: 0 });
  });

  it('refuses a multipart upload that does not fit with 413 saying what is used, what is allowed and what to do, storing nothing', async () => {
    const { token, project } = await companyWithQuota(CT.length + KB);
    const refusedBefore = storedFiles(server.config.dataDir).length;
    expect((await upload(server.api, token, { name: 'first.dcm', data: CT }, project.id)).status).toBe(201);
    const refused = await upload(server.api, token, { name: 'second.dcm', data: CT }, project.id);
    expect(refused.status).toBe(413);
    expect(refused.body.message).toMatch(/^Your company has used \d+\.\d\d KB of its \d+\.\d\d KB storage allowance, so this upload of .* does not fit\. Delete files your company no longer needs, or ask the portal’s administrator for a larger allowance\.$/);
    expect(storedFiles(server.config.dataDir).length).toBe(refusedBefore + 1);
    expect((await listFiles(server.api, token, project.id)).body.data).toHaveLength(1);
  });

  it('weighs a file sent before its studypetitionid against the company before storing it', async () => {
    const { company, token, project } = await companyWithQuota(CT.length + KB);
    expect((await upload(server.api, token, { name: 'first.dcm', data: CT }, project.id, 'file-first')).status).toBe(201);
    const before = storedFiles(server.config.dataDir).length;
    const refused = await upload(server.api, token, { name: 'second.dcm', data: CT }, project.id, 'file-first');
    expect(refused.status).toBe(413);
    expect(refused.body.message).toMatch(/^Your company has used .* storage allowance/);
    expect(storedFiles(server.config.dataDir).length).toBe(before);
    expect(await companyAnswer(company, token)).toMatchObject({ used_bytes: CT.length });
  });

  it("weighs a SysAdmin's file sent first against the project's company too, once the project is known", async () => {
    const { company, token, project } = await companyWithQuota(CT.length + KB);
    expect((await upload(server.api, token, { name: 'first.dcm', data: CT }, project.id)).status).toBe(201);
    const before = storedFiles(server.config.dataDir).length;
    const refused = await upload(server.api, admin, { name: 'second.dcm', data: CT }, project.id, 'file-first');
    expect(refused.status).toBe(413);
    expect(storedFiles(server.config.dataDir).length).toBe(before);
    expect(await companyAnswer(company, token)).toMatchObject({ used_bytes: CT.length });
  });

  it('counts live files only: deleting a file makes room at once', async () => {
    const { token, project } = await companyWithQuota(CT.length + KB);
    const first = await upload(server.api, token, { name: 'first.dcm', data: CT }, project.id);
    expect((await upload(server.api, token, { name: 'second.dcm', data: CT }, project.id)).status).toBe(413);
    expect((await call(`${server.api}/study-petitions-files-delete/${first.body.data[0].id}`, { method: 'PUT', token })).status).toBe(200);
    expect((await upload(server.api, token, { name: 'second.dcm', data: CT }, project.id)).status).toBe(201);
  });

  it("counts a deleted project's files as deleted: deleting the project makes room at once", async () => {
    const { company, token, project } = await companyWithQuota(CT.length + KB);
    expect((await upload(server.api, token, { name: 'a.dcm', data: CT }, project.id)).status).toBe(201);
    const other = await makeProject(server.services, company);
    expect((await upload(server.api, token, { name: 'b.dcm', data: CT }, other.id)).status).toBe(413);
    expect((await call(`${server.api}/study-petitions-delete/${project.id}`, { method: 'PUT', token })).status).toBe(200);
    expect(await companyAnswer(company, token)).toMatchObject({ used_bytes: 0 });
    expect((await upload(server.api, token, { name: 'b.dcm', data: CT }, other.id)).status).toBe(201);
  });

  it('refuses a tus creation whose Upload-Length does not fit, before any byte, and counts open uploads as in flight', async () => {
    const { token, project } = await companyWithQuota(100 * KB);
    const tooLarge = await createUpload(server.api, token, { name: 'big.dcm', projectId: project.id, size: 100 * KB + 1 });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.message).toMatch(/^Your company has used 0 bytes of its 100\.00 KB storage allowance, so this upload of 100\.00 KB does not fit/);

    // An open upload of 60 KB holds its length: a second of 60 KB would pass the allowance together.
    const open = await createUpload(server.api, token, { name: 'open.dcm', projectId: project.id, size: 60 * KB });
    expect(open.status).toBe(201);
    const second = await createUpload(server.api, token, { name: 'second.dcm', projectId: project.id, size: 60 * KB });
    expect(second.status).toBe(413);
    expect(second.body.message).toContain('(and 60.00 KB more is being uploaded)');
    expect(await server.services.handle.db.selectFrom('tus_uploads').select('id').where('file_name', '=', 'second.dcm').execute()).toEqual([]);

    // Once the open one is finished, its bytes are used rather than in flight, and still count.
    const body = Buffer.concat([CT, Buffer.alloc(60 * KB - CT.length)]);
    expect((await patchUpload(uploadUrl(server.api, open), token, 0, body)).status).toBe(204);
    const third = await createUpload(server.api, token, { name: 'third.dcm', projectId: project.id, size: 60 * KB });
    expect(third.body.message).toMatch(/^Your company has used 60\.00 KB of its 100\.00 KB storage allowance, so/);
  });

  it("refuses a delivery's file and a bundle that do not fit, and counts the files an open delivery holds", async () => {
    const { token, project } = await companyWithQuota(3 * CT.length);
    const delivery = (await call(`${server.api}/deliveries`, { token, json: { studypetitionid: project.id, name: 'Folder' } })).body.data[0].id as number;
    const send = (relativePath: string, size: number, extra: Record<string, string> = {}) =>
      createUpload(server.api, token, { size, metadata: encodeMetadata({ filename: relativePath.split('/').pop()!, delivery: String(delivery), relativePath, ...extra }) });
    const sent = await createUpload(server.api, token, {
      size: CT.length,
      body: CT,
      metadata: encodeMetadata({ filename: 'a.dcm', delivery: String(delivery), relativePath: 'A/a.dcm' }),
    });
    expect(sent.status).toBe(201);
    const file = await send('A/b.dcm', 2 * CT.length + 1);
    expect(file.status).toBe(413);
    expect(file.body.message).toMatch(/^Your company has used .* of its .* storage allowance/);
    const bundle = await createUpload(server.api, token, {
      size: 3 * CT.length,
      metadata: encodeMetadata({ filename: 'part.tar', delivery: String(delivery), bundle: 'tar' }),
    });
    expect(bundle.status).toBe(413);
    expect(bundle.body.message).toMatch(/^Your company has used /);
  });

  it('lets parallel uploads together store no more than the allowance', async () => {
    const { company, token, project } = await companyWithQuota(3 * CT.length + 3 * KB);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => upload(server.api, token, { name: `p${i}.dcm`, data: CT }, project.id)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 201 || s === 413)).toBe(true);
    const used = (await companyAnswer(company, token)).used_bytes as number;
    expect(used).toBeLessThanOrEqual(3 * CT.length + 3 * KB);
    await expectNoLeftoversOf(project.id, token);
  });

  async function expectNoLeftoversOf(projectId: number, token: string) {
    const rows = (await listFiles(server.api, token, projectId)).body.data as unknown[];
    expect(rows.length).toBeGreaterThan(0);
    const pending = await server.services.handle.db.selectFrom('pending_uploads').selectAll().execute();
    expect(pending).toEqual([]);
  }

  it('keeps nothing behind for refused uploads', async () => {
    const lone = await startTestServer(dialect);
    try {
      const company = await makeCompany(lone.services);
      const user = await makeUser(lone.services, { company });
      const token = await login(lone.api, user.username, PASSWORD);
      const project = await makeProject(lone.services, company);
      await lone.services.repos.companies.update(company.id, { quota_bytes: 10 });
      expect((await upload(lone.api, token, { name: 'a.dcm', data: CT }, project.id)).status).toBe(413);
      await expectNoLeftovers(lone.services.handle.db, lone.config.dataDir);
    } finally {
      await lone.close();
    }
  });
});
