// Personal API tokens (issue 37, item 1): made and revoked by their owner and their administrators,
// kept only as a hash, a bearer on exactly the routes its scope lists (walked over every registered
// route), narrowed to its projects, stopped at once by revocation, expiry or a disabled owner, and
// audited without its secret, which appears in no table, audit row or log line.
import { createHash } from 'node:crypto';
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow, ProjectRow } from '../../src/db/schema.js';
import { TOKEN_ROUTES } from '../../src/tokens/index.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { everyRowAsText } from '../leak-search.js';
import { startServerProcess, type ServerProcess } from '../processes.js';
import { insertReadyFile } from '../ready-file.js';
import { registeredApiRoutes } from '../registered-routes.js';
import { PUBLIC_ROUTES as PUBLIC } from '../public-routes.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, encodeMetadata } from '../tus.js';
import { dicomFixture, download, upload, waitProcessed } from '../uploads.js';

const SECRET = /^pup_[A-Za-z0-9_-]{43}$/;
const NEVER = 'API tokens cannot be used for this. Sign in to the portal to do it.';
const READ_ONLY = 'This API token may only read. Create a token with the upload scope to send files.';
const CT = dicomFixture('s01_CT_small.dcm');
const DAY = 86_400_000;
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);


/** What a read token may call, written out here apart from the server's own list. */
const READ_ALLOWED = (route: string) =>
  [
    'GET /study-petitions',
    'GET /study-petitions/{id}',
    'GET /study-petitions-files',
    'GET /download-study-petitions-files/{id}',
    'GET /study-petitions-files/{fileId}/contents',
    'GET /study-petitions-files/{fileId}/contents/{entryId}/download',
    'GET /study-petitions/{id}/studies',
  ].includes(route) || route.startsWith('GET /study-petitions/{id}/dicomweb/');

const UPLOAD_ALLOWED = (route: string) =>
  READ_ALLOWED(route) ||
  [
    'GET /upload-settings',
    'POST /upload-study-petitions-files',
    'POST /uploads',
    'HEAD /uploads/{id}',
    'PATCH /uploads/{id}',
    'DELETE /uploads/{id}',
    'POST /deliveries',
    'GET /deliveries/{id}',
    'POST /deliveries/{id}/complete',
    'POST /study-petitions/{id}/files/duplicates',
    'POST /study-petitions/{id}/dicomweb/studies',
    'POST /study-petitions/{id}/dicomweb/studies/{study}',
    'GET /study-petitions/{id}/deidentification',
    'GET /study-petitions/{id}/deidentification/key',
  ].includes(route);

interface Created {
  id: number;
  name: string;
  token: string;
  scope: string;
  projects: { id: number; name: string }[] | null;
  expires_at: string;
}

describe.each(dialects())('personal API tokens on %s', (dialect) => {
  let server: TestServer;
  let companyA: CompanyRow;
  let companyB: CompanyRow;
  let pA1: ProjectRow;
  let pA2: ProjectRow;
  let pB: ProjectRow;
  const session: Record<string, string> = {};
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { jobs: true });
    companyA = await makeCompany(server.services, `Hospital A ${dialect}`);
    companyB = await makeCompany(server.services, `Hospital B ${dialect}`);
    const people: [string, Parameters<typeof makeUser>[1]][] = [
      ['userA', { company: companyA }],
      ['colleagueA', { company: companyA }],
      ['adminA', { company: companyA, role: ROLES.CompanyAdmin }],
      ['userB', { company: companyB }],
      ['adminB', { company: companyB, role: ROLES.CompanyAdmin }],
      ['sysUser', { role: ROLES.SysUser }],
      ['sysAdmin', { role: ROLES.SysAdmin }],
    ];
    for (const [who, overrides] of people) {
      const user = await makeUser(server.services, overrides);
      ids[who] = user.id;
      session[who] = await login(server.api, user.username, PASSWORD);
    }
    pA1 = await makeProject(server.services, companyA, 'Cohort one');
    pA2 = await makeProject(server.services, companyA, 'Cohort two');
    pB = await makeProject(server.services, companyB, 'Their cohort');
  });
  afterAll(() => server?.close());

  const tokens = `/tokens`;
  const create = (who: string, json: unknown) => call(`${server.api}${tokens}`, { token: session[who], json });
  const created = async (who: string, json: Record<string, unknown> = {}): Promise<Created> => {
    const answer = await create(who, { name: 'Nightly PACS export', expires_at: inDays(90), scope: 'read', ...json });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return answer.body.data[0] as Created;
  };
  const listed = async (who: string, owner?: string) => {
    const answer = await call(`${server.api}${tokens}${owner ? `?owner=${owner}` : ''}`, { token: session[who] });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return (answer.body.data as { id: number }[]).map((t) => t.id);
  };
  const revoke = (who: string, id: number) => call(`${server.api}${tokens}/${id}`, { method: 'DELETE', token: session[who] });
  const projectsSeenWith = async (token: string) => ((await call(`${server.api}/study-petitions`, { token })).body.data as { id: number }[]).map((p) => p.id);

  it('answers the secret once, keeps only its hash, and lets it read as its owner', async () => {
    const made = await created('userA');
    expect(made.token).toMatch(SECRET);
    expect(made).toMatchObject({ name: 'Nightly PACS export', scope: 'read', projects: null });
    expect(made.expires_at.slice(0, 10)).toBe(inDays(90));

    const list = await call(`${server.api}${tokens}`, { token: session.userA });
    const row = (list.body.data as Record<string, unknown>[]).find((t) => t.id === made.id)!;
    expect(row).toMatchObject({ name: 'Nightly PACS export', last_used_at: null, user: { id: ids.userA, company_id: companyA.id } });
    expect(row).not.toHaveProperty('token');
    expect(JSON.stringify(list.body)).not.toContain(made.token);

    const stored = await server.services.handle.db.selectFrom('api_tokens').selectAll().where('id', '=', made.id).executeTakeFirstOrThrow();
    expect(stored.token_hash).toBe(createHash('sha256').update(made.token).digest('hex'));
    expect(await everyRowAsText(server.services.handle.db, dialect)).not.toContain(made.token.slice(4));

    const seen = await projectsSeenWith(made.token);
    expect(seen).toEqual(expect.arrayContaining([pA1.id, pA2.id]));
    expect(seen).not.toContain(pB.id);
    const used = (await call(`${server.api}${tokens}`, { token: session.userA })).body.data.find((t: { id: number }) => t.id === made.id);
    expect(used.last_used_at).not.toBeNull();
    expect(used.last_used_ip).toBe('127.0.0.1');
  });

  it('refuses an expiry in the past or more than a year ahead, a missing name and an unknown scope, in words', async () => {
    const refused = async (json: Record<string, unknown>) => {
      const answer = await create('userA', { name: 'Script', expires_at: inDays(30), scope: 'read', ...json });
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      return answer.body.message as string;
    };
    expect(await refused({ expires_at: inDays(-1) })).toBe('The expiry date has passed: choose a date after today');
    expect(await refused({ expires_at: inDays(400) })).toMatch(/^A token may live at most one year: choose an expiry no later than \d{4}-\d{2}-\d{2}$/);
    expect(await refused({ expires_at: 'next tuesday' })).toBe('The expiry must be a date such as 2027-03-31');
    expect(await refused({ name: '  ' })).toBe('name: The name is required');
    expect(await refused({ scope: 'admin' })).toBe('scope: The scope must be read or upload');
    // A year from today is the last day allowed.
    expect((await create('userA', { name: 'A year', expires_at: inDays(365), scope: 'read' })).status).toBe(201);
  });

  it('limits a token to its projects: another answers 404 as another company’s, and foreign ids are refused as unknown', async () => {
    for (const projects of [[pB.id], [999_999], [pA1.id, pB.id]]) {
      const answer = await create('userA', { name: 'Foreign', expires_at: inDays(30), scope: 'read', projects });
      expect(answer).toMatchObject({ status: 404, body: { message: 'Project not found' } });
    }
    const limited = await created('userA', { projects: [pA1.id], scope: 'upload' });
    expect(limited.projects).toEqual([{ id: pA1.id, name: 'Cohort one' }]);
    const inOne = await insertReadyFile(server, pA1.id, companyA.id, 'one.dcm');
    const inTwo = await insertReadyFile(server, pA2.id, companyA.id, 'two.dcm');

    expect(await projectsSeenWith(limited.token)).toEqual([pA1.id]);
    expect((await call(`${server.api}/study-petitions/${pA1.id}`, { token: limited.token })).status).toBe(200);
    expect(await call(`${server.api}/study-petitions/${pA2.id}`, { token: limited.token })).toMatchObject({ status: 404, body: { message: 'Project not found' } });
    expect((await call(`${server.api}/study-petitions-files?study_petition_id=${pA2.id}`, { token: limited.token })).status).toBe(404);
    expect((await call(`${server.api}/study-petitions-files/${inTwo}/contents`, { token: limited.token })).status).toBe(404);
    expect((await download(server.api, limited.token, inTwo)).status).toBe(404);
    expect((await call(`${server.api}/study-petitions/${pA2.id}/dicomweb/studies`, { token: limited.token })).status).toBe(404);
    expect((await upload(server.api, limited.token, { name: 'x.dcm', data: CT }, pA2.id)).status).toBe(404);
    expect((await call(`${server.api}/deliveries`, { token: limited.token, json: { studypetitionid: pA2.id, name: 'Elsewhere' } })).status).toBe(404);
    // The same calls on its own project work.
    expect((await call(`${server.api}/study-petitions-files?study_petition_id=${pA1.id}`, { token: limited.token })).status).toBe(200);
    expect((await call(`${server.api}/study-petitions-files/${inOne}/contents`, { token: limited.token })).status).toBe(200);
    // Its owner's session still reaches both.
    expect((await call(`${server.api}/study-petitions/${pA2.id}`, { token: session.userA })).status).toBe(200);
  });

  it('lets the owner, their company’s CompanyAdmin and a SysAdmin see and revoke a token, and nobody else', async () => {
    const mine = await created('userA', { name: 'Matrix' });
    expect(await listed('userA')).toContain(mine.id);
    expect(await listed('colleagueA')).not.toContain(mine.id);
    expect(await listed('adminA')).not.toContain(mine.id);
    expect(await listed('adminA', 'all')).toContain(mine.id);
    expect(await listed('sysAdmin', 'all')).toContain(mine.id);
    expect(await listed('adminB', 'all')).not.toContain(mine.id);
    for (const who of ['userA', 'sysUser']) {
      expect((await call(`${server.api}${tokens}?owner=all`, { token: session[who] })).status).toBe(403);
    }
    for (const who of ['colleagueA', 'adminB', 'sysUser', 'userB']) {
      expect(await revoke(who, mine.id)).toMatchObject({ status: 404, body: { message: 'API token not found' } });
    }
    expect((await call(`${server.api}/study-petitions`, { token: mine.token })).status).toBe(200);

    expect((await revoke('adminA', mine.id)).status).toBe(204);
    expect(await call(`${server.api}/study-petitions`, { token: mine.token })).toMatchObject({
      status: 401,
      body: { message: 'This API token was revoked. Create a new one under API tokens in the portal’s account menu.' },
    });
    expect(await listed('userA')).not.toContain(mine.id);
    expect((await revoke('userA', mine.id)).status).toBe(404);

    const theirs = await created('userB', { name: 'B’s' });
    expect((await revoke('sysAdmin', theirs.id)).status).toBe(204);
    const own = await created('userB', { name: 'B’s own' });
    expect((await revoke('userB', own.id)).status).toBe(204);
    expect((await call(`${server.api}/study-petitions`, { token: own.token })).status).toBe(401);
  });

  it('stops at once when its owner is disabled or it has expired, and a made-up token is not valid', async () => {
    const made = await created('colleagueA', { name: 'Stops' });
    const read = () => call(`${server.api}/study-petitions`, { token: made.token });
    expect((await read()).status).toBe(200);
    await server.services.repos.users.setDisabled(ids.colleagueA!, true);
    expect(await read()).toMatchObject({ status: 401, body: { message: 'The account this API token belongs to is disabled, so the token no longer works.' } });
    await server.services.repos.users.setDisabled(ids.colleagueA!, false);
    expect((await read()).status).toBe(200);

    await server.services.handle.db.updateTable('api_tokens').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', made.id).execute();
    expect(await read()).toMatchObject({ status: 401, body: { message: 'This API token has expired. Create a new one under API tokens in the portal’s account menu.' } });

    for (const fake of ['pup_' + 'A'.repeat(43), 'pup_short']) {
      expect(await call(`${server.api}/study-petitions`, { token: fake })).toMatchObject({
        status: 401,
        body: { message: 'This API token is not valid. Create a new one under API tokens in the portal’s account menu.' },
      });
    }
  });

  it('lets each scope call exactly the routes of its list, over every registered route', async () => {
    const read = (await created('userA', { name: 'Walk read' })).token;
    const send = (await created('userA', { name: 'Walk upload', scope: 'upload' })).token;
    const routes = registeredApiRoutes(server.app, '/api/v1').filter((route) => !PUBLIC.includes(route) && route !== 'GET /metrics');
    // The metrics route checks its own bearer (a SysAdmin's session or METRICS_TOKEN): a token is none.
    expect((await call(`${server.api}/metrics`, { token: send })).status).toBe(401);
    expect(routes.length).toBeGreaterThan(60);
    // Every entry of the server's list names a registered route (no stale or misspelt entries).
    for (const entry of [...TOKEN_ROUTES.read, ...TOKEN_ROUTES.upload]) {
      expect(routes.some((route) => (entry.endsWith('/*') ? route.startsWith(entry.slice(0, -1)) : route === entry)), entry).toBe(true);
    }
    for (const route of routes) {
      const [method, path] = route.split(' ') as [string, string];
      // Ids no row has: an allowed route answers 404 or 400, a refused one never gets that far.
      const url = `${server.api}${path.replace(/\{(\w+)\}/g, (_m, name: string) => (['study', 'series', 'instance'].includes(name) ? '1.2.3' : '999999'))}`;
      for (const [token, allowed] of [
        [read, READ_ALLOWED(route)],
        [send, UPLOAD_ALLOWED(route)],
      ] as const) {
        const answer = await fetch(url, { method, headers: { authorization: `Bearer ${token}`, 'tus-resumable': '1.0.0' } });
        const text = method === 'HEAD' ? '' : await answer.text();
        if (allowed) {
          expect(answer.status, `${route} with a ${token === read ? 'read' : 'upload'} token`).not.toBe(401);
          expect(text, route).not.toContain(NEVER);
          expect(text, route).not.toContain(READ_ONLY);
        } else {
          expect(answer.status, `${route} with a ${token === read ? 'read' : 'upload'} token`).toBe(403);
          if (method !== 'HEAD') expect(JSON.parse(text).message, route).toBe(token === read && UPLOAD_ALLOWED(route) ? READ_ONLY : NEVER);
        }
      }
    }
    // A token cannot make tokens, change a password or reach the administration.
    expect(await call(`${server.api}${tokens}`, { token: send, json: { name: 'Child', expires_at: inDays(5), scope: 'read' } })).toMatchObject({ status: 403, body: { message: NEVER } });
    expect((await call(`${server.api}/password_reset`, { token: send, json: { userid: ids.userA, old_password: PASSWORD, new_password: 'N3w!Passw0rdX' } })).status).toBe(403);
    expect((await call(`${server.api}/admin/users`, { token: send })).status).toBe(403);
  });

  it('sends through tus, a delivery and STOW-RS with an upload token, reads them back over DICOMweb with a read token', async () => {
    const send = (await created('userA', { name: 'Uploader', scope: 'upload' })).token;
    const read = (await created('userA', { name: 'Reader' })).token;

    expect(await createUpload(server.api, read, { name: 'refused.dcm', projectId: pA1.id, size: CT.length, body: CT })).toMatchObject({ status: 403, body: { message: READ_ONLY } });
    const whole = await createUpload(server.api, send, { name: 'by-token.dcm', projectId: pA1.id, size: CT.length, body: CT });
    expect(whole.status, JSON.stringify(whole.body)).toBe(201);
    const fileId = Number(whole.headers.get('portal-file-id'));
    expect(fileId).toBeGreaterThan(0);
    const processed = await waitProcessed(server.api, read, pA1.id, fileId);
    expect(processed.processing.status).toBe('ready');

    const delivery = await call(`${server.api}/deliveries`, { token: send, json: { studypetitionid: pA1.id, name: 'Export by token' } });
    expect(delivery.status, JSON.stringify(delivery.body)).toBe(201);
    const deliveryId = delivery.body.data[0].id as number;
    const member = await createUpload(server.api, send, {
      size: CT.length,
      body: CT,
      metadata: encodeMetadata({ filename: 'IM1', delivery: String(deliveryId), relativePath: 'DICOM/IM1' }),
    });
    expect(member.status, JSON.stringify(member.body)).toBe(201);
    expect((await call(`${server.api}/deliveries/${deliveryId}/complete`, { method: 'POST', token: send })).status).toBe(200);

    const boundary = 'token-stow-boundary';
    const body = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Type: application/dicom\r\n\r\n`), CT, Buffer.from(`\r\n--${boundary}--\r\n`)]);
    const stow = (token: string) =>
      fetch(`${server.api}/study-petitions/${pA1.id}/dicomweb/studies`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/related; type="application/dicom"; boundary=${boundary}` },
        body,
      });
    expect((await stow(read)).status).toBe(403);
    expect((await stow(send)).status).toBe(200);

    const studies = await fetch(`${server.api}/study-petitions/${pA1.id}/dicomweb/studies`, { headers: { authorization: `Bearer ${read}`, accept: 'application/dicom+json' } });
    expect(studies.status).toBe(200);
    const found = (await studies.json()) as Record<string, { Value: string[] }>[];
    const studyUid = found[0]!['0020000D']!.Value[0]!;
    const metadata = await fetch(`${server.api}/study-petitions/${pA1.id}/dicomweb/studies/${studyUid}/metadata`, { headers: { authorization: `Bearer ${read}` } });
    expect(metadata.status).toBe(200);
  });

  describe('on a portal process sharing the database, its log captured', () => {
    let portal: ServerProcess;
    let api: string;

    beforeAll(async () => {
      portal = await startServerProcess({
        DATA_DIR: server.database.dataDir,
        DATABASE_URL: server.database.databaseUrl,
        LOG_LEVEL: 'trace',
        LOG_FORMAT: 'json',
        PROCESSING_IN_SERVER: 'false',
        MIN_FREE_BYTES: '0',
        // So that a test can come from another address (X-Forwarded-For).
        TRUST_PROXY: 'true',
      });
      api = `${portal.url}/api/v1`;
    });
    afterAll(async () => {
      portal.child.kill('SIGTERM');
      await portal.waitForExit();
    });

    it('audits creation, the first use from each address and revocation, and the secret is in no table, audit row or log line', async () => {
      const made = await call(`${api}/tokens`, { token: session.adminA, json: { name: 'Audited', expires_at: inDays(10), scope: 'upload', projects: [pA1.id] } });
      expect(made.status).toBe(201);
      const { id, token } = made.body.data[0] as Created;
      const from = (address: string) => call(`${api}/study-petitions/${pA1.id}`, { token, headers: { 'x-forwarded-for': address } });
      expect((await from('198.51.100.7')).status).toBe(200);
      expect((await from('198.51.100.7')).status).toBe(200);
      expect((await from('203.0.113.9')).status).toBe(200);
      expect((await from('198.51.100.7')).status).toBe(200);
      expect((await call(`${api}/admin/users`, { token })).status).toBe(403);
      expect((await call(`${api}/tokens/${id}`, { method: 'DELETE', token: session.adminA })).status).toBe(204);
      expect((await from('198.51.100.7')).status).toBe(401);

      const db = server.services.handle.db;
      const rows = await db.selectFrom('audit_log').selectAll().where('object_type', '=', 'api_token').where('object_id', '=', String(id)).orderBy('seq').execute();
      expect(rows.map((r) => [r.action, r.actor_id, r.company_id, r.action === 'api_token.new_address' ? r.ip : null])).toEqual([
        ['api_token.created', ids.adminA, companyA.id, null],
        ['api_token.new_address', ids.adminA, companyA.id, '198.51.100.7'],
        ['api_token.new_address', ids.adminA, companyA.id, '203.0.113.9'],
        ['api_token.revoked', ids.adminA, companyA.id, null],
      ]);
      expect(JSON.parse(rows[0]!.details!)).toEqual({ name: 'Audited', scope: 'upload', projects: String(pA1.id), expires_at: expect.any(String) as string });

      const secret = token.slice(4);
      expect(JSON.stringify(rows)).not.toContain(secret);
      expect(await everyRowAsText(db, dialect)).not.toContain(secret);
      const logs = portal.logs();
      // The requests were logged (so the log was captured), the secret never.
      expect(logs).toContain(`"url":"/api/v1/study-petitions/${pA1.id}"`);
      expect(logs).not.toContain(secret);
    });
  });
});
