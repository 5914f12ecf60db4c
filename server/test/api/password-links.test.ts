// Reset links made by an admin, used once to set a new password, and 'Forgot your password?'.
import { FORGOT_PASSWORD_MESSAGE, ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPassword as setPasswordByCommand } from '../../src/admin/user-admin.js';
import { INVALID_LINK_MESSAGE } from '../../src/auth/password-links.service.js';
import { hashToken } from '../../src/auth/token.js';
import type { CompanyRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { startTestSmtp, type TestSmtp } from '../smtp.js';

const NEW_PASSWORD = 'N3w!Passw0rd';
const tokenOf = (url: string) => new URL(url).hash.replace('#token=', '');

describe.each(dialects())('password links on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let adminToken: string;
  beforeAll(async () => {
    server = await startTestServer(dialect, { TRUST_PROXY: 'true', PASSWORD_FORGOT_MAX_PER_ADDRESS: '3', PUBLIC_URL: 'https://portal.example.org/' });
    company = await makeCompany(server.services);
    const admin = await makeUser(server.services, { company, role: ROLES.CompanyAdmin });
    adminToken = await login(server.api, admin.username, PASSWORD);
  });
  afterAll(() => server.close());

  const makeLink = async (userId: number) => {
    const answer = await call(`${server.api}/admin/users/${userId}/reset-password`, { method: 'POST', token: adminToken });
    expect(answer.status).toBe(200);
    return answer.body.data[0] as { reset_url: string; expires_at: string };
  };
  const setPassword = (json: unknown) => call(`${server.api}/password/set`, { json });

  it('sets a new password once, signing the user out everywhere; the link then stops working', async () => {
    const user = await makeUser(server.services, { company });
    const session = await login(server.api, user.username, PASSWORD);
    const link = await makeLink(user.id);
    expect(link.reset_url).toMatch(/^https:\/\/portal\.example\.org\/set-password#token=[A-Za-z0-9_-]{43}$/);
    const hours = (Date.parse(link.expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);

    const answer = await setPassword({ token: tokenOf(link.reset_url), new_password: NEW_PASSWORD });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { message: 'Password changed successfully' } });
    expect((await call(`${server.api}/me`, { token: session })).status).toBe(401);
    expect(await login(server.api, user.username, NEW_PASSWORD)).toBeTruthy();

    const again = await setPassword({ token: tokenOf(link.reset_url), new_password: 'An0ther!Pass' });
    expect(again.status).toBe(422);
    expect(again.body).toEqual({ message: INVALID_LINK_MESSAGE });
  });

  it('names the account of a working link when its page opens, changes nothing, and refuses a used, replaced, expired or made-up one', async () => {
    const user = await makeUser(server.services, { company, username: `ada_${process.pid}` });
    const ask = (json: unknown) => call(`${server.api}/password/link`, { json });
    const first = await makeLink(user.id);
    const second = await makeLink(user.id);
    const answer = await ask({ token: tokenOf(second.reset_url) });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { username: user.username, firstname: 'Test', expires_at: second.expires_at } });
    // Asked twice, it still works: asking is not using.
    expect((await ask({ token: tokenOf(second.reset_url) })).status).toBe(200);
    expect(await ask({ token: tokenOf(first.reset_url) })).toMatchObject({ status: 422, body: { message: INVALID_LINK_MESSAGE } });
    expect(await ask({ token: 'x'.repeat(43) })).toMatchObject({ status: 422, body: { message: INVALID_LINK_MESSAGE } });
    expect((await ask({})).status).toBe(400);
    expect((await ask({ token: 'x', extra: 1 })).status).toBe(400);
    expect((await setPassword({ token: tokenOf(second.reset_url), new_password: NEW_PASSWORD })).status).toBe(200);
    expect(await ask({ token: tokenOf(second.reset_url) })).toMatchObject({ status: 422, body: { message: INVALID_LINK_MESSAGE } });
    const third = await makeLink(user.id);
    await server.services.handle.db.updateTable('password_links').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('user_id', '=', user.id).execute();
    expect(await ask({ token: tokenOf(third.reset_url) })).toMatchObject({ status: 422, body: { message: INVALID_LINK_MESSAGE } });
  });

  it('keeps only the hash of the link’s secret', async () => {
    const user = await makeUser(server.services, { company });
    const link = await makeLink(user.id);
    const rows = await server.services.handle.db.selectFrom('password_links').selectAll().where('user_id', '=', user.id).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(tokenOf(link.reset_url));
  });

  it.each([
    ['a password shorter than 8', 'Sh0r!t', 'Password does not meet all requirements'],
    ['a password without a special character', 'NoSpecial1here', 'Password does not meet all requirements'],
    ['no password', '', 'All fields are required'],
  ])('refuses %s with the spec’s message and leaves the link usable', async (_label, password, message) => {
    const user = await makeUser(server.services, { company });
    const link = await makeLink(user.id);
    const answer = await setPassword({ token: tokenOf(link.reset_url), new_password: password });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ message });
    expect((await setPassword({ token: tokenOf(link.reset_url), new_password: NEW_PASSWORD })).status).toBe(200);
  });

  it('refuses an expired link, one replaced by a newer link, and a made-up one, all with the same message', async () => {
    const user = await makeUser(server.services, { company });
    const first = await makeLink(user.id);
    const second = await makeLink(user.id);
    expect((await setPassword({ token: tokenOf(first.reset_url), new_password: NEW_PASSWORD })).body).toEqual({ message: INVALID_LINK_MESSAGE });
    await server.services.handle.db.updateTable('password_links').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('user_id', '=', user.id).execute();
    expect((await setPassword({ token: tokenOf(second.reset_url), new_password: NEW_PASSWORD })).body).toEqual({ message: INVALID_LINK_MESSAGE });
    expect((await setPassword({ token: 'x'.repeat(43), new_password: NEW_PASSWORD })).body).toEqual({ message: INVALID_LINK_MESSAGE });
    expect(await login(server.api, user.username, PASSWORD)).toBeTruthy();
  });

  describe('a password changed another way voids the links made before', () => {
    const expectVoided = async (user: { username: string }, link: { reset_url: string }, password: string) => {
      const answer = await setPassword({ token: tokenOf(link.reset_url), new_password: 'Ar0und!Again' });
      expect(answer.status).toBe(422);
      expect(answer.body).toEqual({ message: INVALID_LINK_MESSAGE });
      expect(await login(server.api, user.username, password)).toBeTruthy();
    };

    it('by the user herself (POST /password_reset)', async () => {
      const user = await makeUser(server.services, { company });
      const link = await makeLink(user.id);
      const token = await login(server.api, user.username, PASSWORD);
      const changed = await call(`${server.api}/password_reset`, { method: 'POST', token, json: { userid: user.id, old_password: PASSWORD, new_password: NEW_PASSWORD } });
      expect(changed.status).toBe(200);
      await expectVoided(user, link, NEW_PASSWORD);
    });

    it('by a SysAdmin (POST /password_reset), and by the admin command', async () => {
      const sysAdmin = await makeUser(server.services, { role: ROLES.SysAdmin, password: 'Adm1n!Secret' });
      const token = await login(server.api, sysAdmin.username, 'Adm1n!Secret');
      const user = await makeUser(server.services, { company });
      const link = await makeLink(user.id);
      const changed = await call(`${server.api}/password_reset`, { method: 'POST', token, json: { userid: user.id, old_password: 'Adm1n!Secret', new_password: NEW_PASSWORD } });
      expect(changed.status).toBe(200);
      await expectVoided(user, link, NEW_PASSWORD);

      const next = await makeLink(user.id);
      await setPasswordByCommand(server.services, user.username, 'C0mmand!Set');
      await expectVoided(user, next, 'C0mmand!Set');
    });

    it('through another of her links: the one used voids any other left open', async () => {
      const user = await makeUser(server.services, { company });
      // Two admins making links at the same moment can leave two open: each retires the older
      // links before it adds its own. Made here directly, as such a race leaves them.
      const first = await makeLink(user.id);
      const secret = 'r'.repeat(43);
      const now = new Date();
      await server.services.handle.db
        .insertInto('password_links')
        .values({ user_id: user.id, company_id: company.id, token_hash: hashToken(secret), created_by: null, created_at: now.toISOString(), expires_at: new Date(now.getTime() + 3_600_000).toISOString(), used_at: null })
        .execute();
      expect((await setPassword({ token: secret, new_password: NEW_PASSWORD })).status).toBe(200);
      await expectVoided(user, first, NEW_PASSWORD);
    });
  });

  it('answers a forgotten password the same for an existing and an unknown username', async () => {
    const user = await makeUser(server.services, { company });
    const forgot = (username: string, address: string) => call(`${server.api}/password/forgot`, { json: { username }, headers: { 'x-forwarded-for': address } });
    const known = await forgot(user.username, '198.51.100.1');
    const unknown = await forgot(`nobody_${dialect}`, '198.51.100.2');
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(known.status);
    expect(unknown.body).toEqual(known.body);
    expect(known.body).toEqual({ data: { message: FORGOT_PASSWORD_MESSAGE } });
    const headers = (h: Headers) => [...h.keys()].filter((k) => !['date', 'x-request-id', 'content-length'].includes(k)).sort();
    expect(headers(unknown.headers)).toEqual(headers(known.headers));
  });

  it('shows the request to the user’s CompanyAdmins only, once however often it is asked, until a reset link resolves it', async () => {
    const user = await makeUser(server.services, { company });
    for (let i = 0; i < 3; i += 1) await call(`${server.api}/password/forgot`, { json: { username: user.username }, headers: { 'x-forwarded-for': '198.51.100.10' } });
    const open = await call(`${server.api}/admin/password-requests?q=${user.username}`, { token: adminToken });
    expect(open.status).toBe(200);
    expect(open.body.data).toHaveLength(1);
    expect(open.body.data[0]).toMatchObject({ user_id: user.id, username: user.username, company_id: company.id, resolved_at: null });

    const stranger = await makeUser(server.services, { role: ROLES.CompanyAdmin });
    const theirs = await call(`${server.api}/admin/password-requests?q=${user.username}`, { token: await login(server.api, stranger.username, PASSWORD) });
    expect(theirs.body.data).toEqual([]);
    const plainUser = await makeUser(server.services, { company });
    expect((await call(`${server.api}/admin/password-requests`, { token: await login(server.api, plainUser.username, PASSWORD) })).status).toBe(403);

    await makeLink(user.id);
    expect((await call(`${server.api}/admin/password-requests?q=${user.username}`, { token: adminToken })).body.data).toEqual([]);
    const resolved = await call(`${server.api}/admin/password-requests?q=${user.username}&status=resolved`, { token: adminToken });
    expect(resolved.body.data[0].resolved_at).not.toBeNull();
  });

  it('records no more requests from an address past its limit, answering the same', async () => {
    const users = await Promise.all([1, 2, 3, 4].map(() => makeUser(server.services, { company })));
    for (const user of users) {
      const answer = await call(`${server.api}/password/forgot`, { json: { username: user.username }, headers: { 'x-forwarded-for': '203.0.113.77' } });
      expect(answer.body).toEqual({ data: { message: FORGOT_PASSWORD_MESSAGE } });
    }
    const rows = await server.services.handle.db.selectFrom('password_requests').select('user_id').where('address', '=', '203.0.113.77').execute();
    expect(rows.map((r) => r.user_id).sort()).toEqual(users.slice(0, 3).map((u) => u.id).sort());
  });
});

describe.each(dialects())('password e-mails through a real SMTP server on %s', (dialect) => {
  let server: TestServer;
  let smtp: TestSmtp;
  beforeAll(async () => {
    smtp = await startTestSmtp();
    server = await startTestServer(dialect, { SMTP_URL: smtp.url, MAIL_FROM: 'portal@example.org' });
  });
  afterAll(async () => {
    await server.close();
    await smtp.close();
  });

  it('e-mails a reset link to the user, and a forgotten password to the company’s CompanyAdmins', async () => {
    const company = await makeCompany(server.services);
    const admin = await makeUser(server.services, { company, role: ROLES.CompanyAdmin });
    await server.services.repos.users.update(admin.id, { email: 'admin@clinic.example' });
    const user = await makeUser(server.services, { company });
    await server.services.repos.users.update(user.id, { email: 'user@clinic.example' });

    await call(`${server.api}/password/forgot`, { json: { username: user.username } });
    const [notice] = await smtp.waitFor(1);
    expect(notice!.to).toEqual(['admin@clinic.example']);
    expect(notice!.text).toContain(`(${user.username}) asked for a new password`);

    const token = await login(server.api, admin.username, PASSWORD);
    const link = (await call(`${server.api}/admin/users/${user.id}/reset-password`, { method: 'POST', token })).body.data[0];
    const mails = await smtp.waitFor(2);
    expect(mails[1]!.to).toEqual(['user@clinic.example']);
    expect(mails[1]!.text).toContain(link.reset_url);
    expect(mails[1]!.text).toContain('From: portal@example.org');
  });
});
