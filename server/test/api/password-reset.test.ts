import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../databases.js';
import { makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';

const NEW_PASSWORD = 'N3w!Passw0rd';

describe.each(dialects())('POST /password_reset on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, { TRUST_PROXY: 'true' });
  });
  afterAll(() => server.close());

  const reset = (token: string, json: unknown) => call(`${server.api}/password_reset`, { token, json });

  it('changes one\'s own password and revokes one\'s other sessions, keeping this one', async () => {
    const user = await makeUser(server.services);
    const mine = await login(server.api, user.username, PASSWORD);
    const other = await login(server.api, user.username, PASSWORD);
    const answer = await reset(mine, { userid: user.id, old_password: PASSWORD, new_password: NEW_PASSWORD });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { message: 'Password changed successfully' } });
    expect((await call(`${server.api}/me`, { token: other })).status).toBe(401);
    expect((await call(`${server.api}/me`, { token: mine })).status).toBe(200);
    expect((await call(`${server.api}/login`, { json: { username: user.username, password: PASSWORD } })).status).toBe(401);
    expect(await login(server.api, user.username, NEW_PASSWORD)).toBeTruthy();
  });

  it.each([
    ['a wrong current password', 'Wrong!Pass1', NEW_PASSWORD, 'The current password is incorrect'],
    ['an empty new password', PASSWORD, '', 'All fields are required'],
    ['a new password without a digit', PASSWORD, 'NoDigits!here', 'Password does not meet all requirements'],
    ['a new password without a special character', PASSWORD, 'NoSpecial1here', 'Password does not meet all requirements'],
    ['a new password shorter than 8', PASSWORD, 'Sh0r!t', 'Password does not meet all requirements'],
    ['a new password equal to the current one', PASSWORD, PASSWORD, 'New password must be different from the current one'],
  ])('answers 422 for %s and changes nothing', async (_label, oldPassword, newPassword, message) => {
    const user = await makeUser(server.services);
    const token = await login(server.api, user.username, PASSWORD);
    const answer = await reset(token, { userid: user.id, old_password: oldPassword, new_password: newPassword });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ message });
    expect(await login(server.api, user.username, PASSWORD)).toBeTruthy();
  });

  it('answers 400 for missing fields and for extra fields', async () => {
    const user = await makeUser(server.services);
    const token = await login(server.api, user.username, PASSWORD);
    expect((await reset(token, { userid: user.id, old_password: PASSWORD })).status).toBe(400);
    expect((await reset(token, { userid: user.id, old_password: PASSWORD, new_password: NEW_PASSWORD, role: 4 })).status).toBe(400);
    expect((await reset(token, { userid: 'me', old_password: PASSWORD, new_password: NEW_PASSWORD })).status).toBe(400);
  });

  it('refuses another user of the same company with 403, and of another company with 404', async () => {
    const user = await makeUser(server.services, { role: ROLES.CompanyAdmin });
    const colleague = await makeUser(server.services, { company: await server.services.repos.companies.findById(user.company_id, 'all') });
    const stranger = await makeUser(server.services);
    const token = await login(server.api, user.username, PASSWORD);
    const same = await reset(token, { userid: colleague.id, old_password: PASSWORD, new_password: NEW_PASSWORD });
    const foreign = await reset(token, { userid: stranger.id, old_password: PASSWORD, new_password: NEW_PASSWORD });
    const missing = await reset(token, { userid: 99999999, old_password: PASSWORD, new_password: NEW_PASSWORD });
    expect(same.status).toBe(403);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect(await login(server.api, colleague.username, PASSWORD)).toBeTruthy();
  });

  it('lets a SysUser change nobody else\'s password (403)', async () => {
    const sys = await makeUser(server.services, { role: ROLES.SysUser });
    const victim = await makeUser(server.services);
    const token = await login(server.api, sys.username, PASSWORD);
    const answer = await reset(token, { userid: victim.id, old_password: PASSWORD, new_password: NEW_PASSWORD });
    expect(answer.status).toBe(403);
  });

  it('lets a SysAdmin change anyone\'s password with the SysAdmin\'s own current password, revoking all their sessions', async () => {
    const admin = await makeUser(server.services, { role: ROLES.SysAdmin, password: 'Adm1n!Secret' });
    const victim = await makeUser(server.services);
    const victimToken = await login(server.api, victim.username, PASSWORD);
    const token = await login(server.api, admin.username, 'Adm1n!Secret');
    const wrong = await reset(token, { userid: victim.id, old_password: PASSWORD, new_password: NEW_PASSWORD });
    expect(wrong.status).toBe(422);
    const answer = await reset(token, { userid: victim.id, old_password: 'Adm1n!Secret', new_password: NEW_PASSWORD });
    expect(answer.status).toBe(200);
    expect((await call(`${server.api}/me`, { token: victimToken })).status).toBe(401);
    expect(await login(server.api, victim.username, NEW_PASSWORD)).toBeTruthy();
  });

  it('answers 429 with Retry-After before the 12th wrong current password, and then refuses the right one too', async () => {
    const user = await makeUser(server.services);
    const token = await login(server.api, user.username, PASSWORD);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i += 1) {
      const answer = await reset(token, { userid: user.id, old_password: `Gu3ss!${i}xx`, new_password: NEW_PASSWORD });
      statuses.push(answer.status);
      if (answer.status === 429) {
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(answer.body).toEqual({ message: 'Too many failed login attempts. Try again in 15 minutes.' });
      }
    }
    expect(statuses.slice(0, 5)).toEqual([422, 422, 422, 422, 422]);
    expect(statuses.slice(5)).toEqual(Array(7).fill(429));
    const right = await reset(token, { userid: user.id, old_password: PASSWORD, new_password: NEW_PASSWORD });
    expect(right.status).toBe(429);
    // The guesses count for sign-in from that address too: the other door is closed as well.
    expect((await call(`${server.api}/login`, { json: { username: user.username, password: PASSWORD } })).status).toBe(429);
  });

  it('lets the owner sign in and change the password from another address while a stolen session is throttled', async () => {
    const user = await makeUser(server.services);
    const stolen = await login(server.api, user.username, PASSWORD);
    for (let i = 0; i < 6; i += 1) {
      await reset(stolen, { userid: user.id, old_password: `Gu3ss!${i}xx`, new_password: NEW_PASSWORD });
    }
    const elsewhere = { 'x-forwarded-for': '203.0.113.50' };
    const signIn = await call(`${server.api}/login`, {
      json: { username: user.username, password: PASSWORD },
      headers: elsewhere,
    });
    expect(signIn.status).toBe(200);
    const answer = await call(`${server.api}/password_reset`, {
      token: signIn.body.token,
      json: { userid: user.id, old_password: PASSWORD, new_password: NEW_PASSWORD },
      headers: elsewhere,
    });
    expect(answer.status).toBe(200);
    expect((await call(`${server.api}/me`, { token: stolen })).status).toBe(401);
  });

  it('counts a SysAdmin\'s wrong confirmations against the SysAdmin, not the user being changed', async () => {
    const admin = await makeUser(server.services, { role: ROLES.SysAdmin, password: 'Adm1n!Secret' });
    const victim = await makeUser(server.services);
    const token = await login(server.api, admin.username, 'Adm1n!Secret');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      statuses.push((await reset(token, { userid: victim.id, old_password: `Gu3ss!${i}xx`, new_password: NEW_PASSWORD })).status);
    }
    expect(statuses).toEqual([422, 422, 422, 422, 422, 429]);
    expect(await login(server.api, victim.username, PASSWORD)).toBeTruthy();
  });

  it('needs a session (401 without a token)', async () => {
    const answer = await call(`${server.api}/password_reset`, {
      json: { userid: 1, old_password: PASSWORD, new_password: NEW_PASSWORD },
    });
    expect(answer.status).toBe(401);
  });
});
