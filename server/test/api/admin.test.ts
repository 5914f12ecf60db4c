// The admin API's role matrix (DESIGN §5): role × own/other company × action, on both databases.
import { ROLES, type TRole } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';

type Target = 'own' | 'other';
const ROLE_NAMES = ['User', 'CompanyAdmin', 'SysUser', 'SysAdmin'] as const;

/** What each role gets for each action on its own company's user or company, and another's. */
const MATRIX: Record<string, Record<(typeof ROLE_NAMES)[number], Record<Target, number>>> = {
  'list users of a company': {
    User: { own: 403, other: 403 },
    CompanyAdmin: { own: 200, other: 404 },
    SysUser: { own: 403, other: 403 },
    SysAdmin: { own: 200, other: 200 },
  },
  'create a User in a company': {
    User: { own: 403, other: 403 },
    CompanyAdmin: { own: 201, other: 404 },
    SysUser: { own: 403, other: 403 },
    SysAdmin: { own: 201, other: 201 },
  },
  'change a User': {
    User: { own: 403, other: 403 },
    CompanyAdmin: { own: 200, other: 404 },
    SysUser: { own: 403, other: 403 },
    SysAdmin: { own: 200, other: 200 },
  },
  'make a reset link for a User': {
    User: { own: 403, other: 403 },
    CompanyAdmin: { own: 200, other: 404 },
    SysUser: { own: 403, other: 403 },
    SysAdmin: { own: 200, other: 200 },
  },
  'rename a company': {
    User: { own: 403, other: 403 },
    CompanyAdmin: { own: 403, other: 403 },
    SysUser: { own: 403, other: 403 },
    SysAdmin: { own: 200, other: 200 },
  },
  'list companies': {
    User: { own: 403, other: 403 },
    CompanyAdmin: { own: 403, other: 403 },
    SysUser: { own: 403, other: 403 },
    SysAdmin: { own: 200, other: 200 },
  },
  'read the audit trail': {
    User: { own: 403, other: 403 },
    CompanyAdmin: { own: 200, other: 200 },
    SysUser: { own: 403, other: 403 },
    SysAdmin: { own: 200, other: 200 },
  },
};

describe.each(dialects())('the admin API on %s', (dialect) => {
  let server: TestServer;
  let own: CompanyRow;
  let other: CompanyRow;
  const tokens = {} as Record<(typeof ROLE_NAMES)[number], string>;
  let counter = 0;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    own = await makeCompany(server.services, 'Own Clinic');
    other = await makeCompany(server.services, 'Other Clinic');
    for (const name of ROLE_NAMES) {
      const user = await makeUser(server.services, { company: own, role: ROLES[name] });
      tokens[name] = await login(server.api, user.username, PASSWORD);
    }
  });
  afterAll(() => server.close());

  const userIn = async (target: Target, role: TRole = ROLES.User) => makeUser(server.services, { company: target === 'own' ? own : other, role });
  const companyOf = (target: Target) => (target === 'own' ? own : other);

  const actions: Record<string, (token: string, target: Target) => Promise<number>> = {
    'list users of a company': async (token, target) => (await call(`${server.api}/admin/users?company_id=${companyOf(target).id}`, { token })).status,
    'create a User in a company': async (token, target) => {
      counter += 1;
      const json = { company_id: companyOf(target).id, username: `made${counter}_${dialect}`, firstname: 'New', lastname: 'Person', role: ROLES.User };
      return (await call(`${server.api}/admin/users`, { token, json })).status;
    },
    'change a User': async (token, target) => {
      const user = await userIn(target);
      return (await call(`${server.api}/admin/users/${user.id}`, { method: 'PUT', token, json: { lastname: 'Changed' } })).status;
    },
    'make a reset link for a User': async (token, target) => {
      const user = await userIn(target);
      return (await call(`${server.api}/admin/users/${user.id}/reset-password`, { method: 'POST', token })).status;
    },
    'rename a company': async (token, target) => {
      counter += 1;
      return (await call(`${server.api}/admin/companies/${companyOf(target).id}`, { method: 'PUT', token, json: { companyname: `${companyOf(target).companyname.split(' #')[0]} #${counter}` } })).status;
    },
    'list companies': async (token) => (await call(`${server.api}/admin/companies`, { token })).status,
    'read the audit trail': async (token) => (await call(`${server.api}/admin/audit`, { token })).status,
  };

  const cells = Object.entries(MATRIX).flatMap(([action, byRole]) =>
    ROLE_NAMES.flatMap((role) => (['own', 'other'] as const).map((target) => [action, role, target, byRole[role][target]] as const)),
  );

  it.each(cells)('%s: %s, %s company → %i', async (action, role, target, expected) => {
    expect(await actions[action]!(tokens[role], target)).toBe(expected);
  });

  it('lists only the CompanyAdmin’s own company’s users, and every company’s for a SysAdmin, searched and paged', async () => {
    const mine = await call(`${server.api}/admin/users?per_page=500`, { token: tokens.CompanyAdmin });
    expect(mine.status).toBe(200);
    expect(new Set(mine.body.data.map((u: { company_id: number }) => u.company_id))).toEqual(new Set([own.id]));
    expect(mine.body.data[0]).not.toHaveProperty('password_hash');
    const all = await call(`${server.api}/admin/users?per_page=500`, { token: tokens.SysAdmin });
    expect(new Set(all.body.data.map((u: { company_id: number }) => u.company_id))).toEqual(new Set([own.id, other.id]));
    const searched = await call(`${server.api}/admin/users?q=Person&per_page=1&page=1`, { token: tokens.SysAdmin });
    expect(searched.body.data).toHaveLength(1);
    expect(searched.body.page.total).toBeGreaterThan(1);
    expect((await call(`${server.api}/admin/users?per_page=0`, { token: tokens.SysAdmin })).status).toBe(400);
  });

  it('keeps a CompanyAdmin to the roles User and CompanyAdmin', async () => {
    const sysUser = await userIn('own', ROLES.SysUser);
    expect((await call(`${server.api}/admin/users/${sysUser.id}`, { method: 'PUT', token: tokens.CompanyAdmin, json: { lastname: 'X' } })).status).toBe(403);
    const user = await userIn('own');
    expect((await call(`${server.api}/admin/users/${user.id}`, { method: 'PUT', token: tokens.CompanyAdmin, json: { role: ROLES.SysAdmin } })).status).toBe(403);
    expect((await call(`${server.api}/admin/users/${user.id}`, { method: 'PUT', token: tokens.CompanyAdmin, json: { role: ROLES.CompanyAdmin } })).status).toBe(200);
    const created = await call(`${server.api}/admin/users`, { token: tokens.CompanyAdmin, json: { username: `sys_${dialect}`, firstname: 'A', lastname: 'B', role: ROLES.SysUser } });
    expect(created.status).toBe(403);
  });

  it('creates a user in the CompanyAdmin’s company without a password, who cannot sign in until a link sets one', async () => {
    const answer = await call(`${server.api}/admin/users`, {
      token: tokens.CompanyAdmin,
      json: { username: `nopass_${dialect}`, firstname: ' Ada ', lastname: 'Lovelace', role: ROLES.User, email: 'ada@example.org' },
    });
    expect(answer.status).toBe(201);
    expect(answer.body.data[0]).toMatchObject({ company_id: own.id, firstname: 'Ada', email: 'ada@example.org', disabled: false, role: ROLES.User });
    expect((await call(`${server.api}/login`, { json: { username: `nopass_${dialect}`, password: '!' } })).status).toBe(401);
  });

  it('answers 409 for a taken username, 422 for a weak password, 400 for a malformed one, and asks a SysAdmin for the company', async () => {
    const taken = await userIn('own');
    const base = { firstname: 'A', lastname: 'B', role: ROLES.User };
    expect((await call(`${server.api}/admin/users`, { token: tokens.CompanyAdmin, json: { ...base, username: taken.username } })).status).toBe(409);
    const weak = await call(`${server.api}/admin/users`, { token: tokens.CompanyAdmin, json: { ...base, username: `weak_${dialect}`, password: 'short' } });
    expect(weak.status).toBe(422);
    expect(weak.body).toEqual({ message: 'Password does not meet all requirements' });
    expect((await call(`${server.api}/admin/users`, { token: tokens.CompanyAdmin, json: { ...base, username: 'has space' } })).status).toBe(400);
    const noCompany = await call(`${server.api}/admin/users`, { token: tokens.SysAdmin, json: { ...base, username: `nocompany_${dialect}` } });
    expect(noCompany.status).toBe(422);
    expect(noCompany.body.message).toMatch(/company_id is required/);
  });

  it('disabling a user signs them out and refuses their sign-in; enabling lets them back; nobody disables themselves', async () => {
    const user = await userIn('own');
    const session = await login(server.api, user.username, PASSWORD);
    const disabled = await call(`${server.api}/admin/users/${user.id}`, { method: 'PUT', token: tokens.CompanyAdmin, json: { disabled: true } });
    expect(disabled.status).toBe(200);
    expect(disabled.body.data[0].disabled).toBe(true);
    expect((await call(`${server.api}/me`, { token: session })).status).toBe(401);
    expect((await call(`${server.api}/login`, { json: { username: user.username, password: PASSWORD } })).status).toBe(401);
    await call(`${server.api}/admin/users/${user.id}`, { method: 'PUT', token: tokens.CompanyAdmin, json: { disabled: false } });
    expect(await login(server.api, user.username, PASSWORD)).toBeTruthy();

    const me = await call(`${server.api}/me`, { token: tokens.CompanyAdmin });
    const self = await call(`${server.api}/admin/users/${me.body.data[0].id}`, { method: 'PUT', token: tokens.CompanyAdmin, json: { disabled: true } });
    expect(self.status).toBe(422);
    expect(self.body).toEqual({ message: 'You cannot disable your own account' });
  });

  it('creates and renames companies for a SysAdmin, with the name required', async () => {
    const created = await call(`${server.api}/admin/companies`, { token: tokens.SysAdmin, json: { companyname: '  Radiology Partners ' } });
    expect(created.status).toBe(201);
    expect(created.body.data[0].companyname).toBe('Radiology Partners');
    const empty = await call(`${server.api}/admin/companies`, { token: tokens.SysAdmin, json: { companyname: '   ' } });
    expect(empty.status).toBe(400);
    expect(empty.body.message).toMatch(/company name is required/);
    expect((await call(`${server.api}/admin/companies/999999`, { method: 'PUT', token: tokens.SysAdmin, json: { companyname: 'X' } })).status).toBe(404);
    const listed = await call(`${server.api}/admin/companies?q=radiology`, { token: tokens.SysAdmin });
    expect(listed.body.data.map((c: { companyname: string }) => c.companyname)).toEqual(['Radiology Partners']);
  });
});
