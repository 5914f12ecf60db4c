import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../databases.js';
import { makeCompany, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';

describe.each(dialects())('identity API on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, { LOGIN_MAX_FAILURES_PER_PAIR: '3', LOGIN_MAX_FAILURES_PER_IP: '1000' });
  });
  afterAll(() => server.close());

  describe('POST /login', () => {
    it('answers a token and the user without any secret', async () => {
      const user = await makeUser(server.services, { role: ROLES.CompanyAdmin });
      const answer = await call(`${server.api}/login`, { json: { username: user.username, password: PASSWORD } });
      expect(answer.status).toBe(200);
      expect(answer.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(answer.body.user).toEqual({
        id: user.id,
        username: user.username,
        firstname: user.firstname,
        lastname: user.lastname,
        role: ROLES.CompanyAdmin,
        company_id: user.company_id,
      });
      expect(JSON.stringify(answer.body)).not.toContain('argon2');
    });

    it('stores only a hash of the token and an argon2id hash of the password', async () => {
      const user = await makeUser(server.services);
      const token = await login(server.api, user.username, PASSWORD);
      const sessions = await server.services.handle.db.selectFrom('sessions').selectAll().execute();
      expect(sessions.some((s) => s.token_hash.includes(token))).toBe(false);
      expect(sessions.every((s) => /^[0-9a-f]{64}$/.test(s.token_hash))).toBe(true);
      const row = await server.services.repos.users.findById(user.id);
      expect(row?.password_hash.startsWith('$argon2id$')).toBe(true);
    });

    it('gives an unknown user and a wrong password the same 401', async () => {
      const user = await makeUser(server.services);
      const wrong = await call(`${server.api}/login`, { json: { username: user.username, password: 'Wrong!Pass1' } });
      const unknown = await call(`${server.api}/login`, { json: { username: 'nobody-here', password: 'Wrong!Pass1' } });
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(wrong.body).toEqual({ message: 'Invalid username or password' });
      expect(unknown.body).toEqual(wrong.body);
    });

    it('refuses a disabled user like a wrong password', async () => {
      const user = await makeUser(server.services);
      await server.services.repos.users.setDisabled(user.id, true);
      const answer = await call(`${server.api}/login`, { json: { username: user.username, password: PASSWORD } });
      expect(answer.status).toBe(401);
    });

    it.each([
      ['missing password', { username: 'a' }, 'password is required'],
      ['extra field', { username: 'a', password: 'b', admin: true }, 'Unknown field: admin'],
      ['wrong type', { username: 5, password: 'b' }, 'username'],
    ])('answers 400 for a %s', async (_label, json, message) => {
      const answer = await call(`${server.api}/login`, { json });
      expect(answer.status).toBe(400);
      expect(answer.body.message).toContain(message);
    });

    it('answers 400 for a body that is not JSON, without a stack trace', async () => {
      const answer = await call(`${server.api}/login`, {
        body: '{"username": ',
        headers: { 'content-type': 'application/json' },
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ message: 'The request body is not valid JSON' });
    });

    it('answers 413 for an oversized body', async () => {
      const answer = await call(`${server.api}/login`, {
        json: { username: 'a', password: 'x'.repeat(2 * 1024 * 1024) },
      });
      expect(answer.status).toBe(413);
      expect(answer.body).toEqual({ message: 'The request body is too large' });
    });

    it('treats SQL-shaped and unicode usernames as plain text', async () => {
      const company = await makeCompany(server.services);
      const user = await makeUser(server.services, { company, username: 'zoë.łukasz@例え' });
      expect(await login(server.api, 'zoë.łukasz@例え', user.password)).toBeTruthy();
      for (const username of ["' OR '1'='1", "admin'--", '"; drop table users; --']) {
        const answer = await call(`${server.api}/login`, { json: { username, password: "' OR '1'='1" } });
        expect(answer.status).toBe(401);
      }
      expect(await server.services.repos.users.findById(user.id)).toBeDefined();
    });

    it('throttles repeated failures for a username from one address with 429, Retry-After and how long to wait', async () => {
      const user = await makeUser(server.services);
      for (let i = 0; i < 3; i += 1) {
        const answer = await call(`${server.api}/login`, { json: { username: user.username, password: 'Bad!pass1' } });
        expect(answer.status).toBe(401);
      }
      const blocked = await call(`${server.api}/login`, { json: { username: user.username, password: PASSWORD } });
      expect(blocked.status).toBe(429);
      const retryAfter = Number(blocked.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(14 * 60);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      expect(blocked.body.message).toBe('Too many failed login attempts. Try again in 15 minutes.');
    });

    it('forgets a pair\'s failures once its owner signs in', async () => {
      const user = await makeUser(server.services);
      for (let round = 0; round < 3; round += 1) {
        for (let i = 0; i < 2; i += 1) {
          const answer = await call(`${server.api}/login`, { json: { username: user.username, password: 'Bad!pass1' } });
          expect(answer.status).toBe(401);
        }
        expect(await login(server.api, user.username, PASSWORD)).toBeTruthy();
      }
    });
  });

  describe('sessions', () => {
    it('GET /me answers the signed-in user; no token, a malformed or an unknown token get 401', async () => {
      const user = await makeUser(server.services);
      const token = await login(server.api, user.username, PASSWORD);
      const me = await call(`${server.api}/me`, { token });
      expect(me.status).toBe(200);
      expect(me.body.data[0].id).toBe(user.id);
      expect((await call(`${server.api}/me`)).status).toBe(401);
      expect((await call(`${server.api}/me`, { token: 'not a token' })).status).toBe(401);
      expect((await call(`${server.api}/me`, { token: 'A'.repeat(43) })).status).toBe(401);
      expect((await call(`${server.api}/me`, { headers: { authorization: `Basic ${token}` } })).status).toBe(401);
    });

    it('POST /logout revokes the token on the server', async () => {
      const user = await makeUser(server.services);
      const token = await login(server.api, user.username, PASSWORD);
      expect((await call(`${server.api}/logout`, { method: 'POST', token })).status).toBe(204);
      const after = await call(`${server.api}/me`, { token });
      expect(after.status).toBe(401);
      expect(after.body).toEqual({ message: 'Your session has expired. Please log in again.' });
    });

    it('expires a session after its idle time and after its absolute lifetime', async () => {
      const user = await makeUser(server.services);
      const idle = await login(server.api, user.username, PASSWORD);
      const absolute = await login(server.api, user.username, PASSWORD);
      const { db } = server.services.handle;
      const longAgo = new Date(Date.now() - server.config.tokenIdleMs - 1000).toISOString();
      const sessions = await db.selectFrom('sessions').selectAll().where('user_id', '=', user.id).orderBy('id').execute();
      await db.updateTable('sessions').set({ last_used_at: longAgo }).where('id', '=', sessions[0]!.id).execute();
      await db
        .updateTable('sessions')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', sessions[1]!.id)
        .execute();
      expect((await call(`${server.api}/me`, { token: idle })).status).toBe(401);
      expect((await call(`${server.api}/me`, { token: absolute })).status).toBe(401);
    });
  });

  describe('GET /company/{id}', () => {
    it('answers the own company as data[0]', async () => {
      const company = await makeCompany(server.services, 'Hospital Ünïcode "Quoted"');
      const user = await makeUser(server.services, { company });
      const token = await login(server.api, user.username, PASSWORD);
      const answer = await call(`${server.api}/company/${company.id}`, { token });
      expect(answer.status).toBe(200);
      expect(answer.body.data[0]).toMatchObject({ id: company.id, companyname: 'Hospital Ünïcode "Quoted"' });
      expect(answer.body.data[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it("answers 404 for another company's id exactly as for a missing one", async () => {
      const user = await makeUser(server.services);
      const other = await makeCompany(server.services);
      const token = await login(server.api, user.username, PASSWORD);
      const foreign = await call(`${server.api}/company/${other.id}`, { token });
      const missing = await call(`${server.api}/company/999999`, { token });
      const garbage = await call(`${server.api}/company/1%20OR%201=1`, { token });
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual(missing.body);
      expect(garbage.status).toBe(404);
    });

    it.each([ROLES.SysUser, ROLES.SysAdmin])('lets role %i read any company', async (role) => {
      const user = await makeUser(server.services, { role });
      const other = await makeCompany(server.services);
      const token = await login(server.api, user.username, PASSWORD);
      expect((await call(`${server.api}/company/${other.id}`, { token })).status).toBe(200);
    });
  });
});
