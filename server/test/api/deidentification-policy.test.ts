// A project's de-identification policy and key (issue 33, item 2): who reads and sets the policy,
// who receives the key, and that the key is found nowhere else: not in the audit trail, the
// database in clear, any file under DATA_DIR, the OpenAPI document, or the server's log.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { DEIDENTIFICATION_EDITION, ROLES, type TRole } from '@portal/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import type { CompanyRow } from '../../src/db/schema.js';
import { ProjectKeys } from '../../src/deidentification/index.js';
import { createServices } from '../../src/services.js';
import { SecretBox } from '../../src/sso/index.js';
import { createStorage } from '../../src/storage/create-storage.js';
import { createTestDatabase, dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startServerProcess, type ServerProcess } from '../processes.js';
import { startTestServer, type TestServer } from '../server.js';
import { everyRowAsText, filesUnder } from '../leak-search.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Every way the key could be written down: its bytes, base64 (padded or not), base64url, hex. */
function spellings(keyText: string): Buffer[] {
  const key = Buffer.from(keyText, 'base64url');
  const base64 = key.toString('base64');
  return [key, keyText, base64, base64.replace(/=+$/, ''), key.toString('hex'), key.toString('hex').toUpperCase()].map((s) => (typeof s === 'string' ? Buffer.from(s) : s));
}

function holdsKey(haystack: Buffer | string, keyText: string): boolean {
  const bytes = typeof haystack === 'string' ? Buffer.from(haystack) : haystack;
  return spellings(keyText).some((needle) => bytes.includes(needle));
}

describe.each(dialects())('a project’s de-identification policy and key on %s', (dialect) => {
  let server: TestServer;
  let own: CompanyRow;
  let foreign: CompanyRow;
  const tokens = new Map<string, string>();
  const keysSeen: string[] = [];

  const policyUrl = (id: number | string) => `${server.api}/study-petitions/${id}/deidentification`;
  const keyUrl = (id: number | string) => `${policyUrl(id)}/key`;
  const as = (who: string) => tokens.get(who)!;

  async function keyOf(id: number, who = 'own User'): Promise<string> {
    const answer = await call(keyUrl(id), { token: as(who) });
    expect(answer.status).toBe(200);
    const key = answer.body.data[0].key as string;
    keysSeen.push(key);
    return key;
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    own = await makeCompany(server.services, 'Own Hospital');
    foreign = await makeCompany(server.services, 'Foreign Hospital');
    const people: [string, CompanyRow | undefined, TRole][] = [
      ['own User', own, ROLES.User],
      ['own CompanyAdmin', own, ROLES.CompanyAdmin],
      ['own User 2', own, ROLES.User],
      ['SysUser', undefined, ROLES.SysUser],
      ['SysAdmin', undefined, ROLES.SysAdmin],
      // A SysAdmin whose own company holds the project is still the operator: no key.
      ['SysAdmin of own', own, ROLES.SysAdmin],
      ['foreign User', foreign, ROLES.User],
      ['foreign CompanyAdmin', foreign, ROLES.CompanyAdmin],
    ];
    for (const [who, company, role] of people) {
      const user = await makeUser(server.services, { ...(company ? { company } : {}), role });
      tokens.set(who, await login(server.api, user.username, PASSWORD));
    }
  });
  afterAll(() => server.close());

  describe('the policy', () => {
    it('is off, without options, for a new project when DEIDENTIFICATION_DEFAULT is not set', async () => {
      const created = await call(`${server.api}/study-petitions`, { token: as('own User'), json: { name: 'Default cohort' } });
      const answer = await call(policyUrl(created.body.data[0].id), { token: as('own User') });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ data: [{ profile: 'off', options: [], edition: DEIDENTIFICATION_EDITION, updated_at: created.body.data[0].created_at }] });
    });

    it('is read by everyone who may read the project, and by no one else', async () => {
      const project = await makeProject(server.services, own);
      for (const who of ['own User', 'own CompanyAdmin', 'SysUser', 'SysAdmin']) {
        const answer = await call(policyUrl(project.id), { token: as(who) });
        expect(answer.status, who).toBe(200);
        expect(answer.body.data[0]).toMatchObject({ profile: 'off', options: [], edition: DEIDENTIFICATION_EDITION });
        expect(answer.body.data[0].updated_at).toMatch(ISO);
      }
      const missing = await call(policyUrl(987_654), { token: as('foreign User') });
      expect(missing).toMatchObject({ status: 404, body: { message: 'Project not found' } });
      for (const who of ['foreign User', 'foreign CompanyAdmin']) {
        const answer = await call(policyUrl(project.id), { token: as(who) });
        expect(answer.status, who).toBe(404);
        expect(answer.body).toEqual(missing.body);
      }
      expect((await call(policyUrl(project.id))).status).toBe(401);
      expect((await call(policyUrl('abc'), { token: as('SysAdmin') })).status).toBe(404);
    });

    it('is set by a SysAdmin, options answered in the order of the standard’s table, and audited', async () => {
      const project = await makeProject(server.services, own);
      const answer = await call(policyUrl(project.id), {
        method: 'PUT',
        token: as('SysAdmin'),
        json: { profile: 'basic', options: ['retainUIDs', 'retainLongitudinalModifiedDates', 'cleanDescriptors'] },
      });
      expect(answer.status).toBe(200);
      const policy = { profile: 'basic', options: ['retainLongitudinalModifiedDates', 'cleanDescriptors', 'retainUIDs'], edition: DEIDENTIFICATION_EDITION };
      expect(answer.body.data[0]).toMatchObject(policy);
      expect(answer.body.data[0].updated_at > project.created_at).toBe(true);
      // Everyone who reads the project sees it, the partner's own people included.
      expect((await call(policyUrl(project.id), { token: as('own User') })).body.data[0]).toEqual(answer.body.data[0]);

      const rows = await server.services.handle.db.selectFrom('audit_log').selectAll().where('action', '=', 'project.deidentification_changed').where('object_id', '=', String(project.id)).execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ object_type: 'project', company_id: own.id });
      expect(JSON.parse(rows[0]!.details!)).toEqual({
        profile: 'basic',
        options: 'retainLongitudinalModifiedDates,cleanDescriptors,retainUIDs',
        previous_profile: 'off',
        previous_options: '',
      });

      // Sending the policy in force again changes nothing and records nothing.
      const again = await call(policyUrl(project.id), { method: 'PUT', token: as('SysAdmin'), json: { profile: 'basic', options: ['cleanDescriptors', 'retainUIDs', 'retainLongitudinalModifiedDates'] } });
      expect(again.body.data[0]).toEqual(answer.body.data[0]);
      const off = await call(policyUrl(project.id), { method: 'PUT', token: as('SysAdmin'), json: { profile: 'off', options: [] } });
      expect(off.body.data[0]).toMatchObject({ profile: 'off', options: [] });
      const all = await server.services.handle.db.selectFrom('audit_log').select('details').where('action', '=', 'project.deidentification_changed').where('object_id', '=', String(project.id)).execute();
      expect(all.map((r) => JSON.parse(r.details!).profile)).toEqual(['basic', 'off']);
    });

    it('is set by no one but a SysAdmin: 403 for the roles that see the project, 404 for another company’s and an unknown one', async () => {
      const project = await makeProject(server.services, own);
      const body = { profile: 'basic', options: [] };
      for (const who of ['own User', 'own CompanyAdmin', 'SysUser']) {
        const answer = await call(policyUrl(project.id), { method: 'PUT', token: as(who), json: body });
        expect(answer, who).toMatchObject({ status: 403, body: { message: 'You do not have permission to perform this action' } });
      }
      const missing = await call(policyUrl(987_654), { method: 'PUT', token: as('foreign CompanyAdmin'), json: body });
      expect(missing).toMatchObject({ status: 404, body: { message: 'Project not found' } });
      const theirs = await call(policyUrl(project.id), { method: 'PUT', token: as('foreign CompanyAdmin'), json: body });
      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual(missing.body);
      expect((await call(policyUrl(987_654), { method: 'PUT', token: as('SysAdmin'), json: body })).status).toBe(404);
      expect((await call(policyUrl(project.id), { method: 'PUT', json: body })).status).toBe(401);

      const deleted = await makeProject(server.services, own);
      await server.services.repos.projects.softDelete(deleted.id);
      expect((await call(policyUrl(deleted.id), { method: 'PUT', token: as('SysAdmin'), json: body })).status).toBe(404);
      expect((await call(policyUrl(deleted.id), { token: as('SysAdmin') })).status).toBe(404);

      expect((await call(policyUrl(project.id), { token: as('SysAdmin') })).body.data[0].profile).toBe('off');
    });

    it.each([
      ['an unknown option', { profile: 'basic', options: ['retainUIDs', 'keepEverything'] }, "options.1: 'keepEverything' is not an option; the options are retainLongitudinalModifiedDates, retainPatientCharacteristics, retainDeviceIdentity, retainSafePrivate, cleanDescriptors, retainUIDs"],
      ['an option that is not text', { profile: 'basic', options: [3] }, 'options.0: each option must be text; the options are retainLongitudinalModifiedDates, retainPatientCharacteristics, retainDeviceIdentity, retainSafePrivate, cleanDescriptors, retainUIDs'],
      ['an unknown profile', { profile: 'strict', options: [] }, 'profile: must be off or basic'],
      ['no profile', { options: [] }, 'profile: must be off or basic'],
      ['no options', { profile: 'basic' }, 'options is required'],
      ['options that are not a list', { profile: 'basic', options: 'retainUIDs' }, 'options: must be a list of options, empty or some of retainLongitudinalModifiedDates, retainPatientCharacteristics, retainDeviceIdentity, retainSafePrivate, cleanDescriptors, retainUIDs'],
      ['an option twice', { profile: 'basic', options: ['retainUIDs', 'cleanDescriptors', 'retainUIDs'] }, 'options: lists retainUIDs more than once'],
      ['options with profile off', { profile: 'off', options: ['retainUIDs'] }, 'options: options apply only to the basic profile: send an empty list with profile off'],
      ['a field it does not know', { profile: 'basic', options: [], key: 'mine' }, 'Unknown field: key'],
    ])('refuses %s with 400 in words, and keeps the policy', async (_label, json, message) => {
      const project = await makeProject(server.services, own);
      const answer = await call(policyUrl(project.id), { method: 'PUT', token: as('SysAdmin'), json });
      expect(answer).toMatchObject({ status: 400, body: { message } });
      expect((await call(policyUrl(project.id), { token: as('SysAdmin') })).body.data[0]).toMatchObject({ profile: 'off', options: [] });
    });
  });

  describe('the key', () => {
    it('is 32 bytes in base64url, the same for every user of the project’s company and every call, another for another project', async () => {
      const project = await makeProject(server.services, own);
      const answer = await call(keyUrl(project.id), { token: as('own User') });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(Object.keys(answer.body.data[0])).toEqual(['key']);
      const key = answer.body.data[0].key as string;
      keysSeen.push(key);
      expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(key, 'base64url')).toHaveLength(32);
      expect(await keyOf(project.id)).toBe(key);
      expect(await keyOf(project.id, 'own CompanyAdmin')).toBe(key);
      expect(await keyOf(project.id, 'own User 2')).toBe(key);
      expect(await keyOf((await makeProject(server.services, own)).id)).not.toBe(key);
    });

    it('is made once when several first uses come at once', async () => {
      const project = await makeProject(server.services, own);
      const keys = await Promise.all(Array.from({ length: 6 }, (_, i) => keyOf(project.id, i % 2 ? 'own User' : 'own CompanyAdmin')));
      expect(new Set(keys).size).toBe(1);
      expect(await server.services.handle.db.selectFrom('project_keys').select('project_id').where('project_id', '=', project.id).execute()).toHaveLength(1);
    });

    it('stays the same when the policy changes (no rotation), and is the one the server’s own de-identification gets', async () => {
      const project = await makeProject(server.services, own);
      const key = await keyOf(project.id);
      await call(policyUrl(project.id), { method: 'PUT', token: as('SysAdmin'), json: { profile: 'basic', options: ['retainUIDs'] } });
      expect(await keyOf(project.id)).toBe(key);
      expect((await server.services.deidentification.keyOfProject(project.id)).toString('base64url')).toBe(key);
      expect(await server.services.deidentification.policyOfProject(project.id)).toMatchObject({ profile: 'basic', options: ['retainUIDs'] });

      // Made by the server first, it is the one the browser then receives.
      const second = await makeProject(server.services, own);
      const made = (await server.services.deidentification.keyOfProject(second.id)).toString('base64url');
      expect(await keyOf(second.id)).toBe(made);
    });

    it('is never replaced by a new one when the portal’s secret key is not the one that sealed it: refused in words', async () => {
      const project = await makeProject(server.services, own);
      const key = await keyOf(project.id);
      const sealed = await server.services.handle.db.selectFrom('project_keys').select('key_sealed').where('project_id', '=', project.id).executeTakeFirstOrThrow();
      const otherSecret = new ProjectKeys(server.services.repos.deidentification, new SecretBox({ key: randomBytes(32), dataDir: server.database.dataDir }));
      await expect(otherSecret.keyOf(project.id)).rejects.toMatchObject({
        status: 500,
        message: expect.stringContaining('The de-identification key of this project cannot be opened: the portal’s secret key (SSO_SECRET_KEY, or sso-secret.key in DATA_DIR)'),
      });
      expect(await server.services.handle.db.selectFrom('project_keys').select('key_sealed').where('project_id', '=', project.id).executeTakeFirstOrThrow()).toEqual(sealed);
      expect(await keyOf(project.id)).toBe(key);
    });

    it('is refused to SysUser and SysAdmin (403, even of the project’s own company), and to another company (404, as an unknown project)', async () => {
      const project = await makeProject(server.services, own);
      for (const who of ['SysUser', 'SysAdmin', 'SysAdmin of own']) {
        const answer = await call(keyUrl(project.id), { token: as(who) });
        expect(answer, who).toMatchObject({ status: 403, body: { message: 'You do not have permission to perform this action' } });
      }
      const missing = await call(keyUrl(987_654), { token: as('own User') });
      expect(missing).toMatchObject({ status: 404, body: { message: 'Project not found' } });
      for (const who of ['foreign User', 'foreign CompanyAdmin']) {
        const answer = await call(keyUrl(project.id), { token: as(who) });
        expect(answer.status, who).toBe(404);
        expect(answer.body).toEqual(missing.body);
      }
      expect((await call(keyUrl(project.id))).status).toBe(401);
      // None of those refusals made a key.
      expect(await server.services.handle.db.selectFrom('project_keys').select('project_id').where('project_id', '=', project.id).execute()).toHaveLength(0);
      // A SysAdmin's own company's project is still refused to the SysAdmin, and given to its users.
      const ownProject = (await call(`${server.api}/study-petitions`, { token: as('SysAdmin of own'), json: { name: 'Made by the operator' } })).body.data[0].id as number;
      expect((await call(keyUrl(ownProject), { token: as('SysAdmin of own') })).status).toBe(403);
      expect((await call(keyUrl(ownProject), { token: as('own User') })).status).toBe(200);
    });

    it('is never in clear in the database or any file under DATA_DIR, nor in the audit trail or the OpenAPI document', async () => {
      expect(keysSeen.length).toBeGreaterThan(3);
      // The search finds a key however it is written.
      const probe = keysSeen[0]!;
      for (const spelling of spellings(probe)) expect(holdsKey(Buffer.concat([Buffer.from('…'), spelling, Buffer.from('…')]), probe)).toBe(true);
      const { db } = server.services.handle;
      const stored = await db.selectFrom('project_keys').selectAll().execute();
      expect(stored.length).toBeGreaterThanOrEqual(keysSeen.length / 3);
      for (const row of stored) expect(row.key_sealed).toMatch(/^v1\./);
      const rows = await everyRowAsText(db, dialect);
      const audit = JSON.stringify(await db.selectFrom('audit_log').selectAll().execute());
      const files = filesUnder(server.database.dataDir).map((file) => ({ file, bytes: fs.readFileSync(file) }));
      expect(files.some(({ file }) => file.endsWith('sso-secret.key'))).toBe(true);
      if (dialect === 'sqlite') expect(files.some(({ file }) => file.endsWith('portal.sqlite'))).toBe(true);
      const openapi = await (await fetch(`${server.api}/openapi.json`)).text();
      for (const key of keysSeen) {
        expect(holdsKey(rows, key), 'a database row').toBe(false);
        expect(holdsKey(audit, key), 'the audit trail').toBe(false);
        for (const { file, bytes } of files) expect(holdsKey(bytes, key), file).toBe(false);
        expect(holdsKey(openapi, key), 'the OpenAPI document').toBe(false);
      }
      const keyRoute = (JSON.parse(openapi) as { paths: Record<string, unknown> }).paths['/study-petitions/{id}/deidentification/key'];
      expect(JSON.stringify(keyRoute)).not.toMatch(/"examples?"/);
    });
  });

  describe('on a server started with DEIDENTIFICATION_DEFAULT=basic, its log captured', () => {
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
        DEIDENTIFICATION_DEFAULT: 'basic',
        DEIDENTIFICATION_DEFAULT_OPTIONS: 'retainUIDs, retainLongitudinalModifiedDates',
      });
      api = `${portal.url}/api/v1`;
    });
    afterAll(async () => {
      portal.child.kill('SIGTERM');
      await portal.waitForExit();
    });

    it('creates new projects with that policy, keeps existing ones, and never logs the key', async () => {
      const before = await makeProject(server.services, own);
      const created = await call(`${api}/study-petitions`, { token: as('own User'), json: { name: 'Cohort under the basic default' } });
      expect(created.status).toBe(201);
      const id = created.body.data[0].id as number;
      const policy = await call(`${api}/study-petitions/${id}/deidentification`, { token: as('SysUser') });
      expect(policy.body.data[0]).toEqual({
        profile: 'basic',
        options: ['retainLongitudinalModifiedDates', 'retainUIDs'],
        edition: DEIDENTIFICATION_EDITION,
        updated_at: created.body.data[0].created_at,
      });
      expect((await call(`${api}/study-petitions/${before.id}/deidentification`, { token: as('SysUser') })).body.data[0].profile).toBe('off');

      const keys: string[] = [];
      for (const who of ['own User', 'own CompanyAdmin', 'own User']) {
        const answer = await call(`${api}/study-petitions/${id}/deidentification/key`, { token: as(who) });
        expect(answer.status).toBe(200);
        keys.push(answer.body.data[0].key as string);
      }
      expect(new Set(keys).size).toBe(1);
      // The in-process portal, sharing the database and DATA_DIR, opens the same key.
      expect((await server.services.deidentification.keyOfProject(id)).toString('base64url')).toBe(keys[0]);
      await call(`${api}/study-petitions/${id}/deidentification`, { method: 'PUT', token: as('SysAdmin'), json: { profile: 'basic', options: [] } });
      await call(`${api}/study-petitions/${id}/deidentification/key`, { token: as('SysAdmin') });

      const logs = portal.logs();
      // The requests were logged (so the log was captured), their answers' bodies were not.
      expect(logs).toContain(`"url":"/api/v1/study-petitions/${id}/deidentification/key"`);
      expect(logs).toContain('"statusCode":200');
      expect(holdsKey(logs, keys[0]!)).toBe(false);
    });
  });
});

describe.each(dialects())('migration 024 on %s', (dialect) => {
  it('gives every project that exists the profile off, set since its creation', async () => {
    const database = await createTestDatabase(dialect);
    // Set now, it must not reach the projects that were there before.
    const config = loadConfig({
      DATA_DIR: database.dataDir,
      LOG_LEVEL: 'silent',
      DEIDENTIFICATION_DEFAULT: 'basic',
      ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : {}),
    });
    const handle = openDatabase(config);
    try {
      await migrateTo(handle, '023-finished-tus-uploads');
      const at = '2025-06-01T08:00:00.000Z';
      await sql`INSERT INTO companies (companyname, created_at, updated_at) VALUES ('Old Hospital', ${at}, ${at})`.execute(handle.db);
      await sql`INSERT INTO projects (company_id, name, valid, status, created_at, updated_at) VALUES (1, 'Old cohort', 1, 'Pendant', ${at}, ${at})`.execute(handle.db);
      await migrateToLatest(handle);
      const services = createServices(handle, config, await createStorage(config));
      expect(await services.deidentification.policyOfProject(1)).toEqual({ profile: 'off', options: [], edition: DEIDENTIFICATION_EDITION, updated_at: at });
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});
