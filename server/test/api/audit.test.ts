// The audit trail: every audited action is one row with its actor, object, address and user agent;
// nothing secret is in it; the hash chain catches a row changed in the database; CSV; pruning.
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow, UserRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { runCli } from '../admin-cli.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, encodeMetadata } from '../tus.js';
import { dicomFixture, sha256 } from '../uploads.js';

const AGENT = 'AuditTest/1.0';
const NEW_PASSWORD = 'N3w!Passw0rd';

describe.each(dialects())('the audit trail on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let admin: UserRow;
  let adminToken: string;
  let sysToken: string;
  /** Every secret a test handled: none may appear in any audit row. */
  const secrets = new Set<string>([PASSWORD, NEW_PASSWORD]);

  const as = (token: string, address = '192.0.2.10') => ({ token, headers: { 'user-agent': AGENT, 'x-forwarded-for': address } });
  const signIn = async (username: string, password = PASSWORD) => {
    const answer = await call(`${server.api}/login`, { json: { username, password }, headers: { 'user-agent': AGENT, 'x-forwarded-for': '192.0.2.10' } });
    expect(answer.status).toBe(200);
    secrets.add(answer.body.token);
    return answer.body.token as string;
  };
  const rows = (action: string, objectType?: string, objectId?: number | string) => {
    let query = server.services.handle.db.selectFrom('audit_log').selectAll().where('action', '=', action);
    if (objectType) query = query.where('object_type', '=', objectType);
    if (objectId !== undefined) query = query.where('object_id', '=', String(objectId));
    return query.orderBy('seq').execute();
  };
  /** Exactly one row of `action` on the object, by `actor`, from the test's address and agent. */
  const expectOne = async (action: string, object: [string, number | string] | undefined, actor: UserRow | null) => {
    const found = await rows(action, object?.[0], object?.[1]);
    expect(found, action).toHaveLength(1);
    expect(found[0], action).toMatchObject({ actor_id: actor?.id ?? null, actor_name: actor?.username ?? null, ip: '192.0.2.10', user_agent: AGENT });
    return found[0]!;
  };

  beforeAll(async () => {
    server = await startTestServer(dialect, { TRUST_PROXY: 'true' }, { jobs: true });
    company = await makeCompany(server.services, 'Audited Clinic');
    admin = await makeUser(server.services, { company, role: ROLES.CompanyAdmin });
    adminToken = await signIn(admin.username);
    const sys = await makeUser(server.services, { role: ROLES.SysAdmin });
    sysToken = await signIn(sys.username);
  });
  afterAll(() => server.close());

  it('records sign-in success, failure (naming only existing accounts) and throttling, and sign-out', async () => {
    const user = await makeUser(server.services, { company });
    const token = await signIn(user.username);
    const success = await expectOne('login.success', ['user', user.id], user);
    expect(success.company_id).toBe(company.id);

    await call(`${server.api}/login`, { json: { username: user.username, password: 'Wr0ng!pass' }, headers: { 'user-agent': AGENT, 'x-forwarded-for': '192.0.2.10' } });
    secrets.add('Wr0ng!pass');
    const failures = (await rows('login.failure')).filter((r) => r.actor_id === user.id);
    expect(failures).toHaveLength(1);

    const typo = `Secr3t!typed-as-name-${dialect}`;
    secrets.add(typo);
    await call(`${server.api}/login`, { json: { username: typo, password: 'x' }, headers: { 'x-forwarded-for': '192.0.2.11' } });
    const unknown = (await rows('login.failure')).filter((r) => r.ip === '192.0.2.11');
    expect(unknown).toHaveLength(1);
    expect(unknown[0]).toMatchObject({ actor_id: null, actor_name: null });

    const target = await makeUser(server.services, { company });
    let status = 0;
    for (let i = 0; i < 8 && status !== 429; i += 1) {
      status = (await call(`${server.api}/login`, { json: { username: target.username, password: 'Wr0ng!pass' }, headers: { 'x-forwarded-for': '192.0.2.12' } })).status;
    }
    expect(status).toBe(429);
    expect((await rows('login.throttled')).filter((r) => r.actor_id === target.id)).toHaveLength(1);

    expect((await call(`${server.api}/logout`, { method: 'POST', ...as(token) })).status).toBe(204);
    await expectOne('logout', ['user', user.id], user);
  });

  it('records a password change, a reset link made and used', async () => {
    const user = await makeUser(server.services, { company });
    const token = await signIn(user.username);
    await call(`${server.api}/password_reset`, { ...as(token), json: { userid: user.id, old_password: PASSWORD, new_password: NEW_PASSWORD } });
    await expectOne('password.changed', ['user', user.id], user);

    const link = await call(`${server.api}/admin/users/${user.id}/reset-password`, { method: 'POST', ...as(adminToken) });
    secrets.add(link.body.data[0].reset_url);
    const resetToken = new URL(link.body.data[0].reset_url).hash.slice('#token='.length);
    secrets.add(resetToken);
    await expectOne('password.reset_link_created', ['user', user.id], admin);
    await call(`${server.api}/password/set`, { json: { token: resetToken, new_password: 'Th1rd!Password' }, headers: { 'user-agent': AGENT, 'x-forwarded-for': '192.0.2.10' } });
    secrets.add('Th1rd!Password');
    await expectOne('password.reset_link_used', ['user', user.id], user);
  });

  it('records users and companies created, changed, disabled and enabled', async () => {
    const created = await call(`${server.api}/admin/users`, { ...as(adminToken), json: { username: `audited_${dialect}`, firstname: 'A', lastname: 'B', role: ROLES.User, password: 'Cr3ated!pass' } });
    secrets.add('Cr3ated!pass');
    const id: number = created.body.data[0].id;
    await expectOne('user.created', ['user', id], admin);
    await call(`${server.api}/admin/users/${id}`, { method: 'PUT', ...as(adminToken), json: { lastname: 'C', role: ROLES.CompanyAdmin } });
    const changed = await expectOne('user.changed', ['user', id], admin);
    expect(JSON.parse(changed.details!)).toMatchObject({ changed: 'lastname,role', role: ROLES.CompanyAdmin });
    await call(`${server.api}/admin/users/${id}`, { method: 'PUT', ...as(adminToken), json: { disabled: true } });
    await expectOne('user.disabled', ['user', id], admin);
    await call(`${server.api}/admin/users/${id}`, { method: 'PUT', ...as(adminToken), json: { disabled: false } });
    await expectOne('user.enabled', ['user', id], admin);
    expect(await rows('user.changed', 'user', id)).toHaveLength(1);

    const sys = (await call(`${server.api}/me`, { token: sysToken })).body.data[0];
    const sysRow = (await server.services.repos.users.findById(sys.id))!;
    const company2 = await call(`${server.api}/admin/companies`, { ...as(sysToken), json: { companyname: 'Audit Co' } });
    const companyId: number = company2.body.data[0].id;
    const made = await expectOne('company.created', ['company', companyId], sysRow);
    expect(made.company_id).toBe(companyId);
    await call(`${server.api}/admin/companies/${companyId}`, { method: 'PUT', ...as(sysToken), json: { companyname: 'Audit Company' } });
    const renamed = await expectOne('company.changed', ['company', companyId], sysRow);
    expect(JSON.parse(renamed.details!)).toEqual({ from: 'Audit Co', to: 'Audit Company' });
  });

  it('records projects created, renamed and deleted, uploads (multipart, tus, delivery), downloads and deletions', async () => {
    const user = await makeUser(server.services, { company });
    const token = await signIn(user.username);
    const project = (await call(`${server.api}/study-petitions`, { ...as(token), json: { name: 'Audited study', valid: true, status: 'Pendant' } })).body.data[0];
    await expectOne('project.created', ['project', project.id], user);
    await call(`${server.api}/study-petitions/${project.id}`, { method: 'PUT', ...as(token), json: { ...project, name: 'Audited study 2' } });
    const renamed = await expectOne('project.renamed', ['project', project.id], user);
    expect(JSON.parse(renamed.details!)).toEqual({ from: 'Audited study', to: 'Audited study 2' });

    const data = dicomFixture('s01_CT_small.dcm');
    const form = new FormData();
    form.append('studypetitionid', String(project.id));
    form.append('file', new Blob([new Uint8Array(data)]), 'ct.dcm');
    const multipart = (await (await fetch(`${server.api}/upload-study-petitions-files`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'user-agent': AGENT, 'x-forwarded-for': '192.0.2.10' }, body: form })).json()) as { data: { id: number }[] };
    const fileId: number = multipart.data[0]!.id;
    const uploaded = await expectOne('upload.completed', ['file', fileId], user);
    expect(JSON.parse(uploaded.details!)).toEqual({ name: 'ct.dcm', size: data.length, sha256: sha256(data), project_id: project.id, via: 'multipart' });

    const tus = await createUpload(server.api, token, { name: 'tus.dcm', projectId: project.id, size: data.length, body: data, headers: { 'user-agent': AGENT, 'x-forwarded-for': '192.0.2.10' } });
    expect(tus.status).toBe(201);
    const tusRows = (await rows('upload.completed')).filter((r) => JSON.parse(r.details!).name === 'tus.dcm');
    expect(tusRows).toHaveLength(1);
    expect(tusRows[0]).toMatchObject({ actor_id: user.id, ip: '192.0.2.10', user_agent: AGENT });
    expect(JSON.parse(tusRows[0]!.details!)).toMatchObject({ via: 'tus', sha256: sha256(data) });

    const delivery = (await call(`${server.api}/deliveries`, { ...as(token), json: { studypetitionid: project.id, name: 'CD export' } })).body.data[0];
    await createUpload(server.api, token, { size: data.length, body: data, metadata: encodeMetadata({ filename: 'IM1', delivery: String(delivery.id), relativePath: 'DICOM/IM1' }) });
    const completed = await call(`${server.api}/deliveries/${delivery.id}/complete`, { method: 'POST', ...as(token) });
    const folderId: number = completed.body.data[0].file_id;
    const deliveryRow = await expectOne('upload.completed', ['file', folderId], user);
    expect(JSON.parse(deliveryRow.details!)).toMatchObject({ name: 'CD export', via: 'delivery' });

    // A HEAD sends no bytes: it is no download (each route that records one is asked first).
    const head = async (url: string, expected = 200) => {
      const answer = await fetch(url, { method: 'HEAD', headers: { authorization: `Bearer ${token}`, 'user-agent': AGENT, 'x-forwarded-for': '192.0.2.10' } });
      expect(answer.status, url).toBe(expected);
    };
    await head(`${server.api}/download-study-petitions-files/${fileId}`);
    await head(`${server.api}/download-study-petitions-files/${folderId}`);
    expect(await rows('file.downloaded')).toEqual([]);
    const zip = await fetch(`${server.api}/download-study-petitions-files/${folderId}`, { headers: { authorization: `Bearer ${token}`, 'user-agent': AGENT, 'x-forwarded-for': '192.0.2.10' } });
    expect(zip.headers.get('content-type')).toBe('application/zip');
    await zip.arrayBuffer();
    await expectOne('file.downloaded', ['file', folderId], user);
    const link = await call(`${server.api}/download-links`, { ...as(token), json: { file_id: folderId } });
    expect(link.status).toBe(201);
    // A link answers GET only (a HEAD must not spend it), so its HEAD is not found and records nothing.
    await head(`${server.url}${link.body.data[0].url}`, 404);
    expect(await rows('file.downloaded', 'file', folderId)).toHaveLength(1);
    await (await fetch(`${server.url}${link.body.data[0].url}`, { headers: { 'user-agent': AGENT, 'x-forwarded-for': '192.0.2.10' } })).arrayBuffer();
    expect(await rows('file.downloaded', 'file', folderId)).toHaveLength(2);

    const got = await fetch(`${server.api}/download-study-petitions-files/${fileId}`, { headers: { authorization: `Bearer ${token}`, 'user-agent': AGENT, 'x-forwarded-for': '192.0.2.10' } });
    expect(got.status).toBe(200);
    await got.arrayBuffer();
    const downloaded = await expectOne('file.downloaded', ['file', fileId], user);
    expect(JSON.parse(downloaded.details!)).toMatchObject({ name: 'ct.dcm', sha256: sha256(data) });

    let entries: { id: number }[] = [];
    for (let i = 0; i < 300 && entries.length === 0; i += 1) {
      entries = (await call(`${server.api}/study-petitions-files/${fileId}/contents`, { token })).body.data?.entries ?? [];
      if (entries.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    await head(`${server.api}/study-petitions-files/${fileId}/contents/${entries[0]!.id}/download`);
    expect(await rows('entry.downloaded')).toEqual([]);
    const entry = await fetch(`${server.api}/study-petitions-files/${fileId}/contents/${entries[0]!.id}/download`, { headers: { authorization: `Bearer ${token}`, 'user-agent': AGENT, 'x-forwarded-for': '192.0.2.10' } });
    expect(entry.status).toBe(200);
    await entry.arrayBuffer();
    const entryRow = await expectOne('entry.downloaded', ['entry', entries[0]!.id], user);
    expect(JSON.parse(entryRow.details!)).toMatchObject({ file_id: fileId, sha256: sha256(data) });

    await call(`${server.api}/study-petitions-files-delete/${fileId}`, { method: 'PUT', ...as(token) });
    await expectOne('file.deleted', ['file', fileId], user);
    await call(`${server.api}/study-petitions-files-delete/${folderId}`, { method: 'PUT', ...as(token) });
    await expectOne('delivery.deleted', ['file', folderId], user);
    await call(`${server.api}/study-petitions-delete/${project.id}`, { method: 'PUT', ...as(token) });
    await expectOne('project.deleted', ['project', project.id], user);
  });

  it('holds no password, token or reset link in any row', async () => {
    const all = JSON.stringify(await server.services.handle.db.selectFrom('audit_log').selectAll().execute());
    expect(secrets.size).toBeGreaterThan(5);
    for (const secret of secrets) expect(all).not.toContain(secret);
  });

  it('shows a CompanyAdmin their company’s rows only, filtered and paged, and a SysAdmin everything', async () => {
    const mine = await call(`${server.api}/admin/audit?per_page=500`, { token: adminToken });
    expect(mine.status).toBe(200);
    expect(new Set(mine.body.data.map((r: { company_id: number }) => r.company_id))).toEqual(new Set([company.id]));
    const all = await call(`${server.api}/admin/audit?per_page=500`, { token: sysToken });
    expect(all.body.page.total).toBeGreaterThan(mine.body.page.total);
    const byAction = await call(`${server.api}/admin/audit?action=project.&actor=${admin.id}`, { token: sysToken });
    expect(byAction.body.data).toEqual([]);
    const logins = await call(`${server.api}/admin/audit?action=login.&per_page=2&page=1`, { token: sysToken });
    expect(logins.body.data).toHaveLength(2);
    expect(logins.body.data.every((r: { action: string }) => r.action.startsWith('login.'))).toBe(true);
    const objects = await call(`${server.api}/admin/audit?object=user/${admin.id}&actor=${admin.username}`, { token: sysToken });
    expect(objects.body.data.map((r: { action: string }) => r.action)).toContain('login.success');
    const future = await call(`${server.api}/admin/audit?from=2999-01-01`, { token: sysToken });
    expect(future.body).toMatchObject({ data: [], page: { total: 0 } });
    expect((await call(`${server.api}/admin/audit?from=yesterday`, { token: sysToken })).status).toBe(400);
  });

  it('exports CSV, every cell quoted and formulas defused', async () => {
    const user = await makeUser(server.services, { company });
    const token = await signIn(user.username);
    // A user agent is the client's to choose: a spreadsheet must not read it as a formula.
    await call(`${server.api}/study-petitions`, { token, json: { name: 'Spreadsheet', valid: true, status: 'Pendant' }, headers: { 'user-agent': '=HYPERLINK("http://evil.example")' } });
    const response = await fetch(`${server.api}/admin/audit?format=csv&action=project.created`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="audit.csv"');
    const text = await response.text();
    const lines = text.trim().split('\r\n');
    expect(lines[0]).toBe('seq,at,action,actor_id,actor_name,company_id,ip,user_agent,object_type,object_id,details,hash');
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.every((line, i) => i === 0 || line.startsWith('"'))).toBe(true);
    expect(text).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
    expect(text).not.toMatch(/(^|,)"?=HYPERLINK/m);
  });

  it('keeps one unforked chain under concurrent appends, and verify-audit finds a row changed in the database', async () => {
    const user = await makeUser(server.services, { company });
    const token = await signIn(user.username);
    await Promise.all(Array.from({ length: 20 }, (_, i) => call(`${server.api}/study-petitions`, { token, json: { name: `Parallel ${i}`, valid: true, status: 'Pendant' } })));
    expect(await server.services.audit.verify()).toEqual({ rows: expect.any(Number) as number });
    const env = { DATA_DIR: server.database.dataDir, DATABASE_URL: server.database.databaseUrl };
    const intact = await runCli(['verify-audit'], env);
    expect(intact.code).toBe(0);
    expect(intact.stdout).toMatch(/The audit trail is intact: \d+ rows checked\./);

    const [victim] = await rows('project.created');
    await server.services.handle.db.updateTable('audit_log').set({ actor_name: 'someone else' }).where('seq', '=', victim!.seq).execute();
    const broken = await runCli(['verify-audit'], env);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`the audit trail is broken at row ${victim!.seq}: its contents do not match its hash (the row was changed)`);
    await server.services.handle.db.updateTable('audit_log').set({ actor_name: victim!.actor_name }).where('seq', '=', victim!.seq).execute();

    const [other] = await rows('project.renamed');
    await server.services.handle.db.deleteFrom('audit_log').where('seq', '=', other!.seq).execute();
    expect((await server.services.audit.verify()).break).toEqual({ seq: other!.seq + 1, reason: expect.stringMatching(/removed or inserted/) as string });
  });
});

describe.each(dialects())('pruning the audit trail on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('removes only older rows, records the prune, and the rest still verifies; removing more by hand is caught', async () => {
    const user = await makeUser(server.services);
    const token = await login(server.api, user.username, PASSWORD);
    await call(`${server.api}/study-petitions`, { token, json: { name: 'Before', valid: true, status: 'Pendant' } });
    const cut = new Date(Date.now() + 5).toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await call(`${server.api}/study-petitions`, { token, json: { name: 'After', valid: true, status: 'Pendant' } });
    const env = { DATA_DIR: server.database.dataDir, DATABASE_URL: server.database.databaseUrl };

    expect((await runCli(['prune-audit'], env)).stderr).toContain('--before is required');
    const pruned = await runCli(['prune-audit', '--before', cut], env);
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toMatch(/^Removed \d+ audit rows older than/);
    const left = await server.services.handle.db.selectFrom('audit_log').selectAll().orderBy('seq').execute();
    expect(left.every((r) => r.at >= cut)).toBe(true);
    expect(left.map((r) => r.action)).toEqual(['project.created', 'audit.pruned']);
    expect(left[1]).toMatchObject({ actor_name: 'cli', actor_id: null });
    expect((await runCli(['verify-audit'], env)).code).toBe(0);

    await server.services.handle.db.deleteFrom('audit_log').where('seq', '=', left[0]!.seq).execute();
    const broken = await runCli(['verify-audit'], env);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`broken at row ${left[1]!.seq}`);
  });
});

