// Two-factor sign-in (issue 37 item 3) on real databases, with codes computed by otplib itself at
// the server's clock (held still by the test and moved by whole 30-second steps): enrolment, the
// second step, replays and the time window, recovery codes, the throttle, the company setting, an
// administrator's reset, and the secret kept out of the database, the files and the audit trail.
import fs from 'node:fs';
import { ROLES } from '@portal/contract';
import { generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow, UserRow } from '../../src/db/schema.js';
import { EXPIRED_MESSAGE } from '../../src/two-factor/second-step.service.js';
import { WRONG_CODE } from '../../src/two-factor/authenticators.js';
import { dialects } from '../databases.js';
import { makeCompany, makeUser, PASSWORD } from '../factories.js';
import { call } from '../http.js';
import { everyRowAsText, filesUnder } from '../leak-search.js';
import { startServerProcess } from '../processes.js';
import { startTestServer, type TestServer } from '../server.js';

const STEP_MS = 30_000;

let addressCounter = 0;
/** A fresh client address: each test's attempts count on their own unless it means them to share. */
const newAddress = () => {
  addressCounter += 1;
  return `198.51.100.${addressCounter % 250}`;
};

describe.each(dialects())('two-factor sign-in on %s', (dialect) => {
  let server: TestServer;
  // The server's clock: 10 s into a 30-second step, so one step either side is never ambiguous.
  let time = Math.floor(Date.now() / STEP_MS) * STEP_MS + 10_000;
  const nextStep = (steps = 1) => {
    time += steps * STEP_MS;
  };
  const codeAt = (secret: string, ms = time) => generateSync({ secret, epoch: Math.floor(ms / 1000) });
  /** Every secret and code a test handled: none may be kept in clear or audited. */
  const secrets = new Set<string>();
  let company: CompanyRow;
  let companyAdmin: UserRow;
  let sysAdmin: UserRow;

  beforeAll(async () => {
    server = await startTestServer(
      dialect,
      { TRUST_PROXY: 'true', LOGIN_MAX_FAILURES_PER_PAIR: '5', LOGIN_MAX_FAILURES_PER_USER: '10', LOGIN_MAX_FAILURES_PER_IP: '30' },
      { clock: () => time },
    );
    company = await makeCompany(server.services);
    companyAdmin = await makeUser(server.services, { company, role: ROLES.CompanyAdmin });
    sysAdmin = await makeUser(server.services, { role: ROLES.SysAdmin });
  });
  afterAll(() => server.close());

  const from = (address: string) => ({ 'x-forwarded-for': address });
  const passwordStep = (username: string, address = newAddress(), password = PASSWORD) =>
    call(`${server.api}/login`, { json: { username, password }, headers: from(address) });
  const secondStep = (json: Record<string, unknown>, address = newAddress()) => call(`${server.api}/login/second-factor`, { json, headers: from(address) });
  const signIn = async (username: string) => {
    const answer = await passwordStep(username);
    expect(answer.status).toBe(200);
    return answer.body.token as string;
  };
  const auditRows = (action: string, userId: number) =>
    server.services.handle.db.selectFrom('audit_log').selectAll().where('action', '=', action).where('object_id', '=', String(userId)).execute();

  /** A user of `company` with two-factor sign-in on: its secret and recovery codes. */
  async function enrolled(owner: CompanyRow = company) {
    const user = await makeUser(server.services, { company: owner });
    const token = await signIn(user.username);
    const started = await call(`${server.api}/account/two-factor`, { method: 'POST', token });
    expect(started.status).toBe(200);
    const secret = started.body.data[0].secret as string;
    const confirmed = await call(`${server.api}/account/two-factor/confirm`, { token, json: { code: codeAt(secret) } });
    expect(confirmed.status).toBe(200);
    const recoveryCodes = confirmed.body.data[0].recovery_codes as string[];
    secrets.add(secret);
    recoveryCodes.forEach((c) => secrets.add(c));
    // The confirming code's step is spent: a sign-in starts at the next one.
    nextStep();
    return { user, token, secret, recoveryCodes };
  }

  async function challengeOf(username: string, address?: string): Promise<string> {
    const answer = await passwordStep(username, address);
    expect(answer.status).toBe(401);
    expect(answer.body.second_factor_required).toBe(true);
    return answer.body.challenge as string;
  }

  it('enrols with a QR code and the secret in text, refusing a wrong first code, then gives ten recovery codes once', async () => {
    const user = await makeUser(server.services, { company });
    const token = await signIn(user.username);
    expect((await call(`${server.api}/account/two-factor`, { token })).body.data[0]).toEqual({
      enabled: false,
      available: true,
      required: false,
      enabled_at: null,
      recovery_codes_left: 0,
    });

    const started = await call(`${server.api}/account/two-factor`, { method: 'POST', token });
    expect(started.status).toBe(200);
    const setup = started.body.data[0];
    expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.otpauth_url).toMatch(/^otpauth:\/\/totp\//);
    expect(setup.otpauth_url).toContain(`secret=${setup.secret}`);
    expect(setup.qr_code).toMatch(/^data:image\/png;base64,/);
    secrets.add(setup.secret);

    const right = codeAt(setup.secret);
    const wrong = right === '123456' ? '654321' : '123456';
    const refused = await call(`${server.api}/account/two-factor/confirm`, { token, json: { code: wrong } });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe(WRONG_CODE);
    expect((await call(`${server.api}/account/two-factor`, { token })).body.data[0].enabled).toBe(false);
    // Until confirmed, the password alone still signs in.
    expect((await passwordStep(user.username)).status).toBe(200);

    const confirmed = await call(`${server.api}/account/two-factor/confirm`, { token, json: { code: right } });
    expect(confirmed.status).toBe(200);
    const codes = confirmed.body.data[0].recovery_codes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    codes.forEach((c) => secrets.add(c));
    const status = (await call(`${server.api}/account/two-factor`, { token })).body.data[0];
    expect(status).toMatchObject({ enabled: true, recovery_codes_left: 10 });
    expect((await call(`${server.api}/account/two-factor`, { method: 'POST', token })).status).toBe(409);
    expect(await auditRows('two_factor.enabled', user.id)).toHaveLength(1);
    nextStep();
  });

  it('answers the spec’s sign-in to users without it, and a challenge (no token) to users with it', async () => {
    const plain = await makeUser(server.services, { company });
    const answer = await passwordStep(plain.username);
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(['token', 'user']);

    const { user, secret } = await enrolled();
    const due = await passwordStep(user.username);
    expect(due.status).toBe(401);
    expect(due.body).toEqual({
      message: 'Enter the 6-digit code from your authenticator app',
      second_factor_required: true,
      enrolment_required: false,
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expires_at: expect.any(String),
    });
    expect(due.body.token).toBeUndefined();
    // A wrong password is still the same refusal as ever, with no challenge.
    const wrongPassword = await passwordStep(user.username, newAddress(), 'Wr0ng!Guess');
    expect(wrongPassword.body).toEqual({ message: 'Invalid username or password' });

    const signedIn = await secondStep({ challenge: due.body.challenge, code: codeAt(secret) });
    expect(signedIn.status).toBe(200);
    expect(Object.keys(signedIn.body).sort()).toEqual(['token', 'user']);
    expect(signedIn.body.user.id).toBe(user.id);
    expect((await call(`${server.api}/me`, { token: signedIn.body.token })).status).toBe(200);
    // The challenge worked once.
    nextStep();
    const again = await secondStep({ challenge: due.body.challenge, code: codeAt(secret) });
    expect(again.status).toBe(401);
    expect(again.body.message).toBe(EXPIRED_MESSAGE);
  });

  it('never takes the same code twice, takes the previous step’s code, and refuses one from two steps back', async () => {
    const { user, secret } = await enrolled();
    const code = codeAt(secret);
    expect((await secondStep({ challenge: await challengeOf(user.username), code })).status).toBe(200);
    const replay = await secondStep({ challenge: await challengeOf(user.username), code });
    expect(replay.status).toBe(422);
    expect(replay.body.message).toBe(WRONG_CODE);

    nextStep(2);
    const previous = await secondStep({ challenge: await challengeOf(user.username), code: codeAt(secret, time - STEP_MS) });
    expect(previous.status).toBe(200);

    nextStep(2);
    const challenge = await challengeOf(user.username);
    const stale = await secondStep({ challenge, code: codeAt(secret, time - 2 * STEP_MS) });
    expect(stale.status).toBe(422);
    // The refusal did not spend the challenge: the current code still finishes the sign-in.
    expect((await secondStep({ challenge, code: codeAt(secret) })).status).toBe(200);
  });

  it('takes each recovery code once, and says how many are left', async () => {
    const { user, token, recoveryCodes } = await enrolled();
    // Typed with capitals and spaces, as from paper.
    const typed = ` ${recoveryCodes[3]!.toUpperCase().replace('-', ' - ')} `;
    const used = await secondStep({ challenge: await challengeOf(user.username), recovery_code: typed });
    expect(used.status).toBe(200);
    const again = await secondStep({ challenge: await challengeOf(user.username), recovery_code: recoveryCodes[3] });
    expect(again.status).toBe(422);
    expect(again.body.message).toBe('That recovery code is not right, or it was used already.');
    expect((await call(`${server.api}/account/two-factor`, { token })).body.data[0].recovery_codes_left).toBe(9);
    const audited = await auditRows('two_factor.recovery_code_used', user.id);
    expect(audited).toHaveLength(1);
    expect(JSON.parse(audited[0]!.details!)).toEqual({ codes_left: 9 });
  });

  it('lets a challenge expire after five minutes', async () => {
    const { user, secret } = await enrolled();
    const challenge = await challengeOf(user.username);
    time += 5 * 60_000 + 1;
    const late = await secondStep({ challenge, code: codeAt(secret) });
    expect(late.status).toBe(401);
    expect(late.body.message).toBe(EXPIRED_MESSAGE);
    expect((await secondStep({ challenge: 'x'.repeat(43), code: codeAt(secret) })).status).toBe(401);
    nextStep();
  });

  it('counts wrong codes with the password’s throttle counters, which a right password does not clear', async () => {
    const { user, secret } = await enrolled();
    const attacker = newAddress();
    // The password step counts as one attempt of the pair until the second step succeeds.
    const first = await challengeOf(user.username, attacker);
    for (let i = 0; i < 3; i += 1) expect((await secondStep({ challenge: first, code: '000000' }, attacker)).status).toBe(422);
    const second = await challengeOf(user.username, attacker);
    const throttled = await secondStep({ challenge: second, code: codeAt(secret) }, attacker);
    expect(throttled.status).toBe(429);
    expect(throttled.body.message).toMatch(/^Too many failed login attempts\. Try again in \d+ minutes?\.$/);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await passwordStep(user.username, attacker)).status).toBe(429);
    // The owner, elsewhere, still signs in.
    const owner = newAddress();
    expect((await secondStep({ challenge: await challengeOf(user.username, owner), code: codeAt(secret) }, owner)).status).toBe(200);
    const wrongs = await server.services.handle.db.selectFrom('audit_log').select('details').where('action', '=', 'login.failure').where('actor_id', '=', user.id).execute();
    expect(wrongs.filter((r) => r.details?.includes('second_factor_code'))).toHaveLength(3);
    nextStep();
  });

  it('makes enrolment part of the sign-in where the company requires it, set by its CompanyAdmin or a SysAdmin', async () => {
    const strict = await makeCompany(server.services);
    const strictAdmin = await makeUser(server.services, { company: strict, role: ROLES.CompanyAdmin });
    const strictUser = await makeUser(server.services, { company: strict });
    const adminToken = await signIn(strictAdmin.username);
    const url = (id: number) => `${server.api}/admin/companies/${id}/two-factor`;

    expect((await call(url(strict.id), { token: adminToken })).body.data[0]).toEqual({ company_id: strict.id, required: false });
    expect((await call(url(company.id), { token: adminToken })).status).toBe(404);
    expect((await call(url(company.id), { method: 'PUT', token: adminToken, json: { required: true } })).status).toBe(404);
    expect((await call(url(strict.id), { method: 'PUT', token: await signIn(strictUser.username), json: { required: true } })).status).toBe(403);
    expect((await call(url(strict.id), { method: 'PUT', token: adminToken, json: { required: 'yes' } })).status).toBe(400);
    const set = await call(url(strict.id), { method: 'PUT', token: adminToken, json: { required: true } });
    expect(set.status).toBe(200);
    expect(set.body.data[0].required).toBe(true);
    expect((await call(url(strict.id), { token: await signIn(sysAdmin.username) })).body.data[0].required).toBe(true);

    // The user is led to enrol before any session exists.
    const due = await passwordStep(strictUser.username);
    expect(due.status).toBe(401);
    expect(due.body).toMatchObject({ second_factor_required: true, enrolment_required: true });
    const challenge = due.body.challenge as string;
    expect((await secondStep({ challenge, code: '123456' })).status).toBe(401);
    const confirmUrl = `${server.api}/login/second-factor/enrolment/confirm`;
    expect((await call(confirmUrl, { json: { challenge, code: '123456' } })).status).toBe(422);
    const started = await call(`${server.api}/login/second-factor/enrolment`, { json: { challenge } });
    expect(started.status).toBe(200);
    const secret = started.body.data[0].secret as string;
    secrets.add(secret);
    expect(started.body.data[0].qr_code).toMatch(/^data:image\/png;base64,/);
    const wrong = codeAt(secret) === '123456' ? '654321' : '123456';
    expect((await call(confirmUrl, { json: { challenge, code: wrong } })).status).toBe(422);
    const confirmed = await call(confirmUrl, { json: { challenge, code: codeAt(secret) } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.recovery_codes).toHaveLength(10);
    expect(confirmed.body.user.id).toBe(strictUser.id);
    expect((await call(`${server.api}/me`, { token: confirmed.body.token })).status).toBe(200);
    expect((await call(confirmUrl, { json: { challenge, code: codeAt(secret) } })).status).toBe(401);

    // From now on the user signs in with the app; the CompanyAdmin (not enrolled) is led to enrol too.
    nextStep();
    expect((await secondStep({ challenge: await challengeOf(strictUser.username), code: codeAt(secret) })).status).toBe(200);
    expect((await passwordStep(strictAdmin.username)).body.enrolment_required).toBe(true);
    // Another company is not affected.
    expect((await passwordStep((await makeUser(server.services, { company })).username)).status).toBe(200);
    const changed = await server.services.handle.db.selectFrom('audit_log').selectAll().where('action', '=', 'company.changed').where('company_id', '=', strict.id).execute();
    expect(changed.map((r) => JSON.parse(r.details!))).toContainEqual({ two_factor_required: true });
  });

  it('lets an administrator reset a user’s second factor: a CompanyAdmin their company’s users, a SysAdmin anyone’s', async () => {
    const { user } = await enrolled();
    const other = await makeCompany(server.services);
    const { user: foreign } = await enrolled(other);
    const adminToken = await signIn(companyAdmin.username);
    const reset = (id: number, token: string) => call(`${server.api}/admin/users/${id}/two-factor`, { method: 'DELETE', token });

    expect((await reset(foreign.id, adminToken)).status).toBe(404);
    expect((await reset(user.id, await signIn((await makeUser(server.services, { company })).username))).status).toBe(403);
    expect((await reset(sysAdmin.id, adminToken)).status).toBe(404);
    expect((await reset(user.id, adminToken)).status).toBe(204);
    expect((await reset(user.id, adminToken)).status).toBe(422);
    expect((await passwordStep(user.username)).status).toBe(200);
    expect((await reset(foreign.id, await signIn(sysAdmin.username))).status).toBe(204);
    expect((await passwordStep(foreign.username)).status).toBe(200);

    const audited = await auditRows('two_factor.reset', user.id);
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({ actor_id: companyAdmin.id, company_id: company.id });
  });

  it('turns off with a current code or the password, and gives new recovery codes that replace the old', async () => {
    const { user, token, secret, recoveryCodes } = await enrolled();
    const regenerated = await call(`${server.api}/account/two-factor/recovery-codes`, { token, json: { code: codeAt(secret) } });
    expect(regenerated.status).toBe(200);
    const fresh = regenerated.body.data[0].recovery_codes as string[];
    fresh.forEach((c) => secrets.add(c));
    expect(fresh).toHaveLength(10);
    expect((await secondStep({ challenge: await challengeOf(user.username), recovery_code: recoveryCodes[0] })).status).toBe(422);
    expect((await secondStep({ challenge: await challengeOf(user.username), recovery_code: fresh[0] })).status).toBe(200);

    const disable = (json: Record<string, unknown>) => call(`${server.api}/account/two-factor/disable`, { token, json });
    // The code just used cannot be used again, even here.
    expect((await disable({ code: codeAt(secret) })).status).toBe(422);
    expect((await disable({ password: 'Wr0ng!Guess' })).body.message).toBe('The password is incorrect.');
    expect((await disable({})).status).toBe(400);
    const off = await disable({ password: PASSWORD });
    expect(off.status).toBe(200);
    expect(off.body.data[0].enabled).toBe(false);
    expect((await passwordStep(user.username)).status).toBe(200);
    expect(await auditRows('two_factor.disabled', user.id)).toHaveLength(1);
    expect(await auditRows('two_factor.recovery_codes_regenerated', user.id)).toHaveLength(1);
  });

  it('does not let users who sign in through their identity provider enrol', async () => {
    const ssoUser = await makeUser(server.services, { company });
    await server.services.handle.db.updateTable('users').set({ password_hash: '!' }).where('id', '=', ssoUser.id).execute();
    const { token } = await server.services.auth.startSession((await server.services.repos.users.findById(ssoUser.id))!, 'sso');
    expect((await call(`${server.api}/account/two-factor`, { token })).body.data[0].available).toBe(false);
    const refused = await call(`${server.api}/account/two-factor`, { method: 'POST', token });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/identity provider/);
  });

  it('never writes the secret, a code or a challenge to the log, even at trace level', async () => {
    const portal = await startServerProcess({
      DATA_DIR: server.database.dataDir,
      DATABASE_URL: server.database.databaseUrl,
      LOG_LEVEL: 'trace',
      LOG_FORMAT: 'json',
      PROCESSING_IN_SERVER: 'false',
      MIN_FREE_BYTES: '0',
    });
    try {
      // This portal reads the real clock.
      const api = `${portal.url}/api/v1`;
      const user = await makeUser(server.services, { company });
      const signInAnswer = (json: unknown) => call(`${api}/login`, { json });
      const token = (await signInAnswer({ username: user.username, password: PASSWORD })).body.token as string;
      const secret = (await call(`${api}/account/two-factor`, { method: 'POST', token })).body.data[0].secret as string;
      const first = generateSync({ secret });
      const codes = (await call(`${api}/account/two-factor/confirm`, { token, json: { code: first } })).body.data[0].recovery_codes as string[];
      const challenge = (await signInAnswer({ username: user.username, password: PASSWORD })).body.challenge as string;
      const code = generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });
      expect((await call(`${api}/login/second-factor`, { json: { challenge, code } })).status).toBe(200);
      const another = (await signInAnswer({ username: user.username, password: PASSWORD })).body.challenge as string;
      expect((await call(`${api}/login/second-factor`, { json: { challenge: another, recovery_code: codes[0] } })).status).toBe(200);
      [secret, ...codes].forEach((s) => secrets.add(s));

      const logs = portal.logs();
      expect(logs).toContain('"url":"/api/v1/login/second-factor"');
      for (const value of [secret, ...codes, challenge, another]) expect(logs).not.toContain(value);
      // Six digits alone may be part of a time or an id: a code would be a quoted string.
      for (const value of [first, code]) expect(logs).not.toContain(`"${value}"`);
    } finally {
      portal.child.kill('SIGTERM');
      await portal.waitForExit();
    }
  });

  // Last: it reads what every test left behind.
  it('keeps no secret nor recovery code in clear in the database, its files or the audit trail', async () => {
    expect(secrets.size).toBeGreaterThan(10);
    const rows = await everyRowAsText(server.services.handle.db, dialect);
    const files = filesUnder(server.database.dataDir).map((f) => fs.readFileSync(f).toString('latin1'));
    const audit = JSON.stringify(await server.services.handle.db.selectFrom('audit_log').selectAll().execute());
    for (const secret of secrets) {
      for (const text of [rows, audit, ...files]) {
        expect(text.includes(secret)).toBe(false);
        expect(text.includes(secret.toLowerCase())).toBe(false);
      }
    }
  });
});
