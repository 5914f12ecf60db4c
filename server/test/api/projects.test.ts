import { ROLES, type TRole } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe.each(dialects())('projects API on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let other: CompanyRow;
  const tokens = new Map<TRole, string>();

  beforeAll(async () => {
    server = await startTestServer(dialect);
    company = await makeCompany(server.services, 'Own Hospital');
    other = await makeCompany(server.services, 'Other Hospital');
    for (const role of [ROLES.User, ROLES.CompanyAdmin, ROLES.SysUser, ROLES.SysAdmin] as TRole[]) {
      const user = await makeUser(server.services, { company, role });
      tokens.set(role, await login(server.api, user.username, PASSWORD));
    }
  });
  afterAll(() => server.close());

  const user = () => tokens.get(ROLES.User)!;
  const create = (json: unknown, token = user()) => call(`${server.api}/study-petitions`, { token, json });

  describe('create', () => {
    it("creates a project in the user's company, status 'Pendant', valid, name trimmed", async () => {
      const answer = await create({ name: '  Knee CT 2026  ', valid: true, status: 'Pendant' });
      expect(answer.status).toBe(201);
      const [project] = answer.body.data;
      expect(project).toMatchObject({ name: 'Knee CT 2026', valid: true, status: 'Pendant', company_id: company.id });
      expect(project.created_at).toMatch(ISO);
      expect(project.updated_at).toMatch(ISO);
      expect(Object.keys(project).sort()).toEqual(['company_id', 'created_at', 'id', 'name', 'status', 'updated_at', 'valid']);
    });

    it.each([
      ['empty', ''],
      ['blank', ' \t\n '],
    ])('refuses an %s name with 422 and the spec message', async (_label, name) => {
      const answer = await create({ name, valid: true, status: 'Pendant' });
      expect(answer).toMatchObject({ status: 422, body: { message: 'The name of the study is required' } });
    });

    it('accepts 255 characters (unicode counted as characters) and refuses 256', async () => {
      expect((await create({ name: 'é'.repeat(255) })).status).toBe(201);
      const tooLong = await create({ name: 'a'.repeat(256) });
      expect(tooLong).toMatchObject({ status: 422, body: { message: 'The name of the study must be at most 255 characters' } });
    });

    it('keeps SQL-shaped and unicode names as they are', async () => {
      const name = "Robert'); DROP TABLE projects;-- 脳MRI \"quoted\"";
      const answer = await create({ name });
      expect(answer.body.data[0].name).toBe(name);
      expect((await call(`${server.api}/study-petitions/${answer.body.data[0].id}`, { token: user() })).body.data[0].name).toBe(name);
    });

    it.each([
      ['a missing name', { valid: true }, 400],
      ['an extra field', { name: 'x', company_id: 99 }, 400],
      ['another status', { name: 'x', status: 'Approved' }, 400],
      ['a name that is not text', { name: 42 }, 400],
    ])('answers %s with %i', async (_label, json, status) => {
      const answer = await create(json);
      expect(answer.status).toBe(status);
      expect(typeof answer.body.message).toBe('string');
    });

    it('answers 401 without a session and 403 for a SysUser', async () => {
      expect((await call(`${server.api}/study-petitions`, { json: { name: 'x' } })).status).toBe(401);
      const answer = await create({ name: 'x' }, tokens.get(ROLES.SysUser));
      expect(answer).toMatchObject({ status: 403, body: { message: 'You do not have permission to perform this action' } });
    });
  });

  describe('list and get', () => {
    it("lists only the own company's live projects for partner roles, all for Sys roles", async () => {
      const mine = await makeProject(server.services, company, 'Mine');
      const theirs = await makeProject(server.services, other, 'Theirs');
      const gone = await makeProject(server.services, company, 'Gone');
      await server.services.repos.projects.softDelete(gone.id);

      for (const role of [ROLES.User, ROLES.CompanyAdmin]) {
        const ids = (await call(`${server.api}/study-petitions`, { token: tokens.get(role) })).body.data.map((p: { id: number }) => p.id);
        expect(ids).toContain(mine.id);
        expect(ids).not.toContain(theirs.id);
        expect(ids).not.toContain(gone.id);
      }
      for (const role of [ROLES.SysUser, ROLES.SysAdmin]) {
        const ids = (await call(`${server.api}/study-petitions`, { token: tokens.get(role) })).body.data.map((p: { id: number }) => p.id);
        expect(ids).toEqual(expect.arrayContaining([mine.id, theirs.id]));
        expect(ids).not.toContain(gone.id);
      }
    });

    it('filters by ?company_id= for Sys roles, and never widens a partner\'s view', async () => {
      const theirs = await makeProject(server.services, other, 'Filter me');
      const sys = await call(`${server.api}/study-petitions?company_id=${other.id}`, { token: tokens.get(ROLES.SysUser) });
      expect(sys.body.data.every((p: { company_id: number }) => p.company_id === other.id)).toBe(true);
      expect(sys.body.data.map((p: { id: number }) => p.id)).toContain(theirs.id);
      const partner = await call(`${server.api}/study-petitions?company_id=${other.id}`, { token: user() });
      expect(partner).toMatchObject({ status: 200, body: { data: [] } });
    });

    it("answers 404 for another company's project exactly as for a missing one", async () => {
      const theirs = await makeProject(server.services, other);
      const foreign = await call(`${server.api}/study-petitions/${theirs.id}`, { token: user() });
      const missing = await call(`${server.api}/study-petitions/987654`, { token: user() });
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual(missing.body);
      expect((await call(`${server.api}/study-petitions/abc`, { token: user() })).status).toBe(404);
      expect((await call(`${server.api}/study-petitions/99999999999`, { token: user() })).status).toBe(404);
    });
  });

  describe('update and soft delete', () => {
    it('renames with the project body the client sends back, trimming, and moves updated_at', async () => {
      const project = (await create({ name: 'Before' })).body.data[0];
      await new Promise((r) => setTimeout(r, 5));
      const answer = await call(`${server.api}/study-petitions/${project.id}`, {
        method: 'PUT',
        token: user(),
        json: { ...project, name: '  After  ' },
      });
      expect(answer.status).toBe(200);
      expect(answer.body.data[0]).toMatchObject({ id: project.id, name: 'After', created_at: project.created_at });
      expect(answer.body.data[0].updated_at > project.updated_at).toBe(true);
      const blank = await call(`${server.api}/study-petitions/${project.id}`, { method: 'PUT', token: user(), json: { name: '' } });
      expect(blank).toMatchObject({ status: 422, body: { message: 'The name of the study is required' } });
    });

    it('soft-deletes: gone from the list and from get, the row kept', async () => {
      const project = (await create({ name: 'Delete me' })).body.data[0];
      const answer = await call(`${server.api}/study-petitions-delete/${project.id}`, { method: 'PUT', token: user() });
      expect(answer.status).toBe(200);
      expect((await call(`${server.api}/study-petitions/${project.id}`, { token: user() })).status).toBe(404);
      const list = await call(`${server.api}/study-petitions`, { token: user() });
      expect(list.body.data.map((p: { id: number }) => p.id)).not.toContain(project.id);
      expect((await call(`${server.api}/study-petitions-delete/${project.id}`, { method: 'PUT', token: user() })).status).toBe(404);
      const row = await server.services.handle.db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirst();
      expect(row?.deleted_at).toMatch(ISO);
    });

    it('accepts a bodiless delete labelled as JSON', async () => {
      const project = (await create({ name: 'Labelled' })).body.data[0];
      const answer = await call(`${server.api}/study-petitions-delete/${project.id}`, {
        method: 'PUT',
        token: user(),
        headers: { 'content-type': 'application/json' },
      });
      expect(answer.status).toBe(200);
    });
  });

  // role × own/other company × action: the status each combination answers.
  const MATRIX: [TRole, 'own' | 'other', 'get' | 'update' | 'delete', number][] = [];
  const expectations: Record<TRole, Record<'own' | 'other', [number, number, number]>> = {
    [ROLES.User]: { own: [200, 200, 200], other: [404, 404, 404] },
    [ROLES.CompanyAdmin]: { own: [200, 200, 200], other: [404, 404, 404] },
    [ROLES.SysUser]: { own: [200, 403, 403], other: [200, 403, 403] },
    [ROLES.SysAdmin]: { own: [200, 200, 200], other: [200, 200, 200] },
  };
  for (const [role, byCompany] of Object.entries(expectations)) {
    for (const [where, statuses] of Object.entries(byCompany)) {
      (['get', 'update', 'delete'] as const).forEach((action, i) =>
        MATRIX.push([Number(role) as TRole, where as 'own' | 'other', action, statuses[i]!]),
      );
    }
  }

  it.each(MATRIX)('role %i on an %s project: %s answers %i', async (role, where, action, status) => {
    const project = await makeProject(server.services, where === 'own' ? company : other);
    const token = tokens.get(role)!;
    const url = {
      get: `${server.api}/study-petitions/${project.id}`,
      update: `${server.api}/study-petitions/${project.id}`,
      delete: `${server.api}/study-petitions-delete/${project.id}`,
    }[action];
    const init = {
      get: { token },
      update: { token, method: 'PUT', json: { name: 'Renamed' } },
      delete: { token, method: 'PUT' },
    }[action];
    const answer = await call(url, init);
    expect(answer.status).toBe(status);
    const after = await server.services.repos.projects.find(project.id, 'all');
    if (status !== 200 || action === 'get') {
      expect(after).toMatchObject({ name: project.name, deleted_at: null });
    }
  });
});
