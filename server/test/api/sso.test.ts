// Single sign-on through a company's own OpenID provider, against real providers (oidc-provider)
// on loopback: the settings (SysAdmin only, secret never answered nor stored in clear), the
// look-up behind 'Sign in with <company>', and the whole sign-in, including the ways it must fail.
import fs from 'node:fs';
import path from 'node:path';
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/http/logger.js';
import { EXPIRED_HANDOFF_MESSAGE } from '../../src/sso/sso-flow.service.js';
import { passwordLoginMessage } from '../../src/sso/password-login-policy.js';
import type { CompanyRow, UserRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestProvider, type TestProvider } from '../oidc-provider.js';
import { startTestServer, type TestServer } from '../server.js';
import { MiniBrowser, signInAtProvider } from '../sso-browser.js';

const SECRET_A = 'client-secret-of-st-marys-9f3a';
const SECRET_B = 'client-secret-of-riverside-77c1';

describe.each(dialects())('single sign-on on %s', (dialect) => {
  let server: TestServer;
  let providerA: TestProvider;
  let providerB: TestProvider;
  let companyA: CompanyRow;
  let companyB: CompanyRow;
  let sysAdmin: string;
  let addresses = 0;
  /** Each sign-in from its own address, so the per-address limit is tested on its own. */
  const browser = () => new MiniBrowser(`203.0.113.${(addresses += 1)}`);
  const callbackUrl = () => `${server.url}/api/v1/sso/callback`;

  const settingsOf = (companyId: number, token = sysAdmin) => call(`${server.api}/admin/companies/${companyId}/sso`, { token });
  const putSettings = (companyId: number, json: Record<string, unknown>, token = sysAdmin) =>
    call(`${server.api}/admin/companies/${companyId}/sso`, { method: 'PUT', token, json });
  const settingsA = (changes: Record<string, unknown> = {}) => ({
    enabled: true,
    issuer: providerA.issuer,
    client_id: 'portal-a',
    password_login_allowed: true,
    auto_create_users: false,
    ...changes,
  });

  /** The whole sign-in as `login` at a company's provider (A's by default): where the browser lands on the portal. */
  const signInThrough = async (loginName: string, companyId = companyA.id) => {
    const b = browser();
    const returned = await signInAtProvider(b, `${server.url}/api/v1/sso/${companyId}/start`, loginName, callbackUrl());
    const landing = await b.request(returned);
    expect(landing.status).toBe(302);
    return landing.headers.get('location')!;
  };
  /** The count of failed single sign-ons for `reason`, as Prometheus would scrape it. */
  const ssoFailures = async (reason: string) => {
    const text = (await call<string>(`${server.api}/metrics`, { token: sysAdmin })).body;
    const line = new RegExp(`^portal_sso_failures_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text);
    return Number(line?.[1] ?? 0);
  };
  const codeOf = (location: string) => /^\/#sso=([A-Za-z0-9_-]{43})$/.exec(location)?.[1];
  const complete = (code: string) => call(`${server.api}/sso/complete`, { json: { code } });
  const auditRows = (companyId: number) =>
    server.services.handle.db.selectFrom('audit_log').selectAll().where('company_id', '=', companyId).orderBy('seq').execute();

  beforeAll(async () => {
    server = await startTestServer(dialect, { TRUST_PROXY: 'true', SSO_DISCOVER_MAX_PER_ADDRESS: '4' });
    [providerA, providerB] = await Promise.all([
      startTestProvider([{ client_id: 'portal-a', client_secret: SECRET_A, redirect_uris: [callbackUrl()] }]),
      // B's provider answers e-mail and username at userinfo only.
      startTestProvider([{ client_id: 'portal-b', client_secret: SECRET_B, redirect_uris: [callbackUrl()] }], { claimsInIdToken: false }),
    ]);
    companyA = await makeCompany(server.services, `St Mary ${dialect}`);
    companyB = await makeCompany(server.services, `Riverside ${dialect}`);
    const admin = await makeUser(server.services, { role: ROLES.SysAdmin });
    sysAdmin = await login(server.api, admin.username, PASSWORD);
    expect((await putSettings(companyA.id, settingsA({ client_secret: SECRET_A }))).status).toBe(200);
    const b = await putSettings(companyB.id, { ...settingsA(), issuer: providerB.issuer, client_id: 'portal-b', client_secret: SECRET_B });
    expect(b.status).toBe(200);
  });
  afterAll(async () => {
    await Promise.all([providerA?.close(), providerB?.close()]);
    await server?.close();
  });

  async function userOfA(name: string, email: string | null): Promise<UserRow> {
    const user = await makeUser(server.services, { company: companyA, username: `${name}_${dialect}` });
    if (email) await server.services.repos.users.update(user.id, { email });
    return { ...user, email };
  }

  describe('settings', () => {
    it('are answered to a SysAdmin without the secret, which the database holds only encrypted', async () => {
      const answer = await settingsOf(companyA.id);
      expect(answer.status).toBe(200);
      expect(answer.body.data[0]).toEqual({
        company_id: companyA.id,
        enabled: true,
        issuer: providerA.issuer,
        client_id: 'portal-a',
        has_secret: true,
        password_login_allowed: true,
        auto_create_users: false,
        redirect_uri: callbackUrl(),
        login_url: `${server.url}/api/v1/sso/${companyA.id}/start`,
      });
      expect(JSON.stringify(answer.body)).not.toContain(SECRET_A);
      const row = await server.services.handle.db.selectFrom('company_sso').selectAll().where('company_id', '=', companyA.id).executeTakeFirstOrThrow();
      expect(JSON.stringify(row)).not.toContain(SECRET_A);
      expect(row.client_secret_enc).toMatch(/^v1\./);
      const keyFile = path.join(server.config.dataDir, 'sso-secret.key');
      expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
      const trail = await auditRows(companyA.id);
      expect(JSON.stringify(trail)).not.toContain(SECRET_A);
      expect(trail.find((r) => r.action === 'company.changed')?.details).toContain('"sso_issuer"');
    });

    it('keep the stored secret when a change leaves it out', async () => {
      const changed = await putSettings(companyA.id, settingsA());
      expect(changed.status).toBe(200);
      expect(changed.body.data[0].has_secret).toBe(true);
    });

    it('are the SysAdmin’s alone: a CompanyAdmin and a User are refused, an unknown company is 404', async () => {
      const companyAdmin = await makeUser(server.services, { company: companyA, role: ROLES.CompanyAdmin });
      const token = await login(server.api, companyAdmin.username, PASSWORD);
      expect((await settingsOf(companyA.id, token)).status).toBe(403);
      expect((await putSettings(companyA.id, settingsA(), token)).status).toBe(403);
      const user = await makeUser(server.services, { company: companyA });
      expect((await settingsOf(companyA.id, await login(server.api, user.username, PASSWORD))).status).toBe(403);
      expect((await settingsOf(999_999)).status).toBe(404);
    });

    it('refuse to turn single sign-on on without a secret, or with an issuer that does not answer, in words', async () => {
      const company = await makeCompany(server.services);
      const noSecret = await putSettings(company.id, settingsA());
      expect(noSecret.status).toBe(422);
      expect(noSecret.body).toEqual({ message: 'Enter the client secret the provider gave for this client' });
      const deadIssuer = await putSettings(company.id, settingsA({ issuer: 'http://127.0.0.1:9', client_secret: 'x' }));
      expect(deadIssuer.status).toBe(422);
      expect(deadIssuer.body.message).toBe(
        'The portal could not read the OpenID configuration at http://127.0.0.1:9/.well-known/openid-configuration. Check the issuer address and that the portal can reach it.',
      );
      const plainHttp = await putSettings(company.id, settingsA({ issuer: 'http://login.example.org', client_secret: 'x' }));
      expect(plainHttp.status).toBe(400);
      expect((await settingsOf(company.id)).body.data[0]).toMatchObject({ enabled: false, has_secret: false });
    });
  });

  describe('the look-up behind the button', () => {
    const discover = (username: string, address: string) => call(`${server.api}/sso/discover`, { json: { username }, headers: { 'x-forwarded-for': address } });

    it('answers an unknown username exactly as a user of a company without single sign-on', async () => {
      const plain = await makeUser(server.services);
      const unknown = await discover(`nobody_${dialect}`, '198.51.100.1');
      const known = await discover(plain.username, '198.51.100.1');
      expect(unknown.status).toBe(200);
      expect(unknown.body).toEqual({ data: { sso: null } });
      expect(known.body).toEqual(unknown.body);
    });

    it('names the company and its start link for a user of a company with single sign-on', async () => {
      const user = await userOfA('carol', null);
      const answer = await discover(user.username, '198.51.100.2');
      expect(answer.body).toEqual({
        data: { sso: { company_name: companyA.companyname, start_url: `/api/v1/sso/${companyA.id}/start`, password_login_allowed: true } },
      });
    });

    it('answers one address only so often, then says when to try again', async () => {
      for (let i = 0; i < 4; i += 1) expect((await discover(`probe${i}`, '198.51.100.3')).status).toBe(200);
      const refused = await discover('probe5', '198.51.100.3');
      expect(refused.status).toBe(429);
      expect(refused.body.message).toMatch(/^Too many sign-in requests from this address\. Try again in \d+ minutes?\.$/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await discover('probe6', '198.51.100.4')).status).toBe(200);
    });
  });

  describe('signing in', () => {
    it('matches the provider’s e-mail to the company’s user and gives the portal’s own session through a one-time code', async () => {
      const alice = await userOfA('alice', `alice.${dialect}@stmary.test`);
      providerA.accounts.set(`alice-${dialect}`, { email: `ALICE.${dialect}@stmary.test`, email_verified: true, preferred_username: 'someone-else' });
      const location = await signInThrough(`alice-${dialect}`);
      const code = codeOf(location);
      expect(code, location).toBeDefined();

      const session = await complete(code!);
      expect(session.status).toBe(200);
      expect(session.body.user).toMatchObject({ id: alice.id, username: alice.username, company_id: companyA.id });
      expect(session.body.token).not.toBe(code);
      const me = await call(`${server.api}/me`, { token: session.body.token });
      expect(me.status).toBe(200);
      expect(me.body.data[0].id).toBe(alice.id);

      const again = await complete(code!);
      expect(again.status).toBe(401);
      expect(again.body).toEqual({ message: EXPIRED_HANDOFF_MESSAGE });

      const success = (await auditRows(companyA.id)).filter((r) => r.action === 'login.success' && r.actor_id === alice.id);
      expect(success).toHaveLength(1);
      expect(JSON.parse(success[0]!.details!)).toEqual({ method: 'sso' });
      const trail = JSON.stringify(await auditRows(companyA.id));
      expect(trail).not.toContain(code);
      expect(trail).not.toContain(session.body.token);
      expect(await server.services.handle.db.selectFrom('sso_logins').selectAll().execute()).toEqual([]);
    });

    it('matches preferred_username when the provider sends no e-mail', async () => {
      const dave = await userOfA('dave', null);
      providerA.accounts.set(`dave-${dialect}`, { preferred_username: dave.username });
      const session = await complete(codeOf(await signInThrough(`dave-${dialect}`))!);
      expect(session.body.user.id).toBe(dave.id);
    });

    it('reads the e-mail from userinfo when the provider keeps it out of the id token', async () => {
      const kim = await makeUser(server.services, { company: companyB, username: `kim_${dialect}` });
      await server.services.repos.users.update(kim.id, { email: `kim.${dialect}@riverside.test` });
      providerB.accounts.set(`kim-${dialect}`, { email: `kim.${dialect}@riverside.test`, email_verified: true });
      const session = await complete(codeOf(await signInThrough(`kim-${dialect}`, companyB.id))!);
      expect(session.status).toBe(200);
      expect(session.body.user).toMatchObject({ id: kim.id, company_id: companyB.id });
    });

    it('never signs in a user of another company, whatever the provider claims', async () => {
      const bob = await makeUser(server.services, { company: companyB, username: `bob_${dialect}` });
      await server.services.repos.users.update(bob.id, { email: `bob.${dialect}@riverside.test` });
      providerA.accounts.set(`bob-${dialect}`, { email: `bob.${dialect}@riverside.test`, preferred_username: bob.username });
      expect(await signInThrough(`bob-${dialect}`)).toBe('/#sso_error=unknown_user');
      const failure = (await auditRows(companyA.id)).at(-1)!;
      expect(failure.action).toBe('login.failure');
      expect(JSON.parse(failure.details!)).toMatchObject({ method: 'sso', reason: 'unknown_user' });
      // Not even with creating users on: bob's username is another company's.
      expect((await putSettings(companyA.id, settingsA({ auto_create_users: true }))).status).toBe(200);
      try {
        expect(await signInThrough(`bob-${dialect}`)).toBe('/#sso_error=unknown_user');
        expect((await server.services.repos.users.findByUsername(bob.username))?.company_id).toBe(companyB.id);
      } finally {
        await putSettings(companyA.id, settingsA());
      }
    });

    it('refuses an answer from a provider that is not the company’s, with the state of a sign-in at company A', async () => {
      const erin = await userOfA('erin', `erin.${dialect}@stmary.test`);
      providerB.accounts.set(`erin-${dialect}`, { email: erin.email!, preferred_username: erin.username });
      /** A sign-in begun at company A whose browser an attacker's page sends to B's provider with the same request. */
      const answerFromB = async () => {
        const b = browser();
        const start = await b.request(`${server.url}/api/v1/sso/${companyA.id}/start`);
        const toA = new URL(start.headers.get('location')!);
        expect(toA.origin).toBe(providerA.issuer);
        const toB = new URL(toA.pathname + toA.search, providerB.issuer);
        toB.searchParams.set('client_id', 'portal-b');
        return { b, returned: new URL(await signInAtProvider(b, toB.toString(), `erin-${dialect}`, callbackUrl())) };
      };
      const first = await answerFromB();
      expect(first.returned.searchParams.get('iss')).toBe(providerB.issuer);
      expect((await first.b.request(first.returned.toString())).headers.get('location')).toBe('/#sso_error=failed');
      // Without the iss parameter the code is still B's, and A's provider does not take it.
      const second = await answerFromB();
      second.returned.searchParams.delete('iss');
      expect((await second.b.request(second.returned.toString())).headers.get('location')).toBe('/#sso_error=failed');
      const failures = (await auditRows(companyA.id)).slice(-2);
      for (const failure of failures) expect(JSON.parse(failure.details!)).toMatchObject({ method: 'sso', reason: 'invalid_answer' });
      expect(await server.services.handle.db.selectFrom('sessions').selectAll().where('user_id', '=', erin.id).execute()).toEqual([]);
    });

    it('refuses a disabled user, saying so', async () => {
      const frank = await userOfA('frank', `frank.${dialect}@stmary.test`);
      await server.services.repos.users.setDisabled(frank.id, true);
      providerA.accounts.set(`frank-${dialect}`, { email: frank.email! });
      expect(await signInThrough(`frank-${dialect}`)).toBe('/#sso_error=disabled');
      const failure = (await auditRows(companyA.id)).at(-1)!;
      expect(failure).toMatchObject({ action: 'login.failure', actor_id: frank.id });
      expect(JSON.parse(failure.details!)).toMatchObject({ method: 'sso', reason: 'disabled' });
      // A callback answers a redirect, which the HTTP metrics cannot tell from a success: counted by reason.
      const before = await ssoFailures('disabled');
      expect(await signInThrough(`frank-${dialect}`)).toBe('/#sso_error=disabled');
      expect(await ssoFailures('disabled')).toBe(before + 1);
    });

    it('refuses a user unknown to the company, unless creating users is on: then creates them with role User', async () => {
      providerA.accounts.set(`gina-${dialect}`, { email: `gina.${dialect}@stmary.test`, preferred_username: `gina_${dialect}`, given_name: 'Gina', family_name: 'Moreau' });
      expect(await signInThrough(`gina-${dialect}`)).toBe('/#sso_error=unknown_user');
      expect(await server.services.repos.users.findByUsername(`gina_${dialect}`)).toBeUndefined();

      expect((await putSettings(companyA.id, settingsA({ auto_create_users: true }))).status).toBe(200);
      try {
        const session = await complete(codeOf(await signInThrough(`gina-${dialect}`))!);
        expect(session.status).toBe(200);
        expect(session.body.user).toMatchObject({ username: `gina_${dialect}`, firstname: 'Gina', lastname: 'Moreau', role: ROLES.User, company_id: companyA.id });
        const created = await server.services.repos.users.findByUsername(`gina_${dialect}`);
        expect(created?.email).toBe(`gina.${dialect}@stmary.test`);
        // The second time they are found, not created again.
        const again = await complete(codeOf(await signInThrough(`gina-${dialect}`))!);
        expect(again.body.user.id).toBe(created!.id);
      } finally {
        await putSettings(companyA.id, settingsA());
      }
    });

    it('takes each answer once, only in the browser that started the sign-in', async () => {
      const hank = await userOfA('hank', `hank.${dialect}@stmary.test`);
      providerA.accounts.set(`hank-${dialect}`, { email: hank.email! });
      const b = browser();
      const returned = await signInAtProvider(b, `${server.url}/api/v1/sso/${companyA.id}/start`, `hank-${dialect}`, callbackUrl());
      // Another browser (without the start's cookie) opening the same answer gets nothing, and spends it.
      expect((await browser().request(returned)).headers.get('location')).toBe('/#sso_error=expired');
      expect((await b.request(returned)).headers.get('location')).toBe('/#sso_error=expired');
    });

    it('sends the browser back with a reason when the user cancels at the provider', async () => {
      const b = browser();
      const start = await b.request(`${server.url}/api/v1/sso/${companyA.id}/start`);
      const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
      const answer = await b.request(`${callbackUrl()}?error=access_denied&error_description=End-User+aborted&state=${state}&iss=${encodeURIComponent(providerA.issuer)}`);
      expect(answer.headers.get('location')).toBe('/#sso_error=cancelled');
    });

    it('sends a company without single sign-on back to the login screen', async () => {
      const company = await makeCompany(server.services);
      const answer = await browser().request(`${server.url}/api/v1/sso/${company.id}/start`);
      expect(answer.status).toBe(302);
      expect(answer.headers.get('location')).toBe('/#sso_error=not_set_up');
    });

    it('refuses a password sign-in when the company turned it off, pointing to the button, but keeps a SysAdmin’s', async () => {
      const ivy = await userOfA('ivy', null);
      const sysAdminOfA = await makeUser(server.services, { company: companyA, role: ROLES.SysAdmin });
      expect((await putSettings(companyA.id, settingsA({ password_login_allowed: false }))).status).toBe(200);
      try {
        const refused = await call(`${server.api}/login`, { json: { username: ivy.username, password: PASSWORD } });
        expect(refused.status).toBe(403);
        expect(refused.body).toEqual({ message: passwordLoginMessage(companyA.companyname) });
        expect(refused.body.message).toBe(`Password sign-in is turned off for ${companyA.companyname}. Use 'Sign in with ${companyA.companyname}' instead.`);
        expect(await login(server.api, sysAdminOfA.username, PASSWORD)).toBeTruthy();
        const discovered = await call(`${server.api}/sso/discover`, { json: { username: ivy.username }, headers: { 'x-forwarded-for': '198.51.100.9' } });
        expect(discovered.body.data.sso.password_login_allowed).toBe(false);
      } finally {
        await putSettings(companyA.id, settingsA());
      }
      expect(await login(server.api, ivy.username, PASSWORD)).toBeTruthy();
    });

    it('keeps the provider’s code and state out of the request log', () => {
      expect(redactUrl('/api/v1/sso/callback?code=abc123&state=xyz789&iss=http%3A%2F%2Fidp')).toBe('/api/v1/sso/callback?[redacted]');
    });
  });
});
