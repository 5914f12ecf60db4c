// Webhooks (issue 35): endpoints per company and portal-wide, who may manage them, what a receiver
// gets (signed the Standard Webhooks way, checked here with the `standardwebhooks` library), the
// log with its retries, and the refusal of private addresses.
import { ROLES, ZWebhookBody } from '@portal/contract';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { dicomFixture, upload, waitProcessed } from '../uploads.js';
import { insertReadyFile } from '../ready-file.js';
import { startReceiver, type ReceivedHook, type TestReceiver } from '../webhook-receiver.js';

const PATIENT_NAME = 'CompressedSamples';
const PATIENT_ID = '1CT1';

interface Created {
  id: number;
  secret: string;
  company_id: number | null;
}

describe.each(dialects())('webhooks on %s', (dialect) => {
  let server: TestServer;
  let receiver: TestReceiver;
  let companyA: CompanyRow;
  let companyB: CompanyRow;
  let sysAdmin: string;
  let sysUser: string;
  let adminA: string;
  let adminB: string;
  let userA: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    // Retries a second apart (then 2, 4 s): with no backoff all eleven attempts could pass between
    // two looks at the log, which then read 'failed' where a retry was still to come (one CI run).
    server = await startTestServer(dialect, { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_SECONDS: '1', WEBHOOK_TIMEOUT_SECONDS: '1' }, { jobs: true });
    companyA = await makeCompany(server.services, `Hospital A ${dialect}`);
    companyB = await makeCompany(server.services, `Hospital B ${dialect}`);
    const token = async (overrides: Parameters<typeof makeUser>[1]) => login(server.api, (await makeUser(server.services, overrides)).username, PASSWORD);
    sysAdmin = await token({ role: ROLES.SysAdmin });
    sysUser = await token({ role: ROLES.SysUser });
    adminA = await token({ company: companyA, role: ROLES.CompanyAdmin });
    adminB = await token({ company: companyB, role: ROLES.CompanyAdmin });
    userA = await token({ company: companyA });
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  const hooks = `/admin/webhooks`;
  const create = (token: string, json: unknown) => call(`${server.api}${hooks}`, { token, json });
  const created = async (token: string, json: unknown): Promise<Created> => {
    const answer = await create(token, json);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return answer.body.data[0] as Created;
  };
  const log = async (token: string, id: number) => (await call(`${server.api}${hooks}/${id}/deliveries`, { token })).body.data as Record<string, unknown>[];
  const verify = (secret: string, hook: ReceivedHook) => new Webhook(secret).verify(hook.body, hook.headers);

  it('lets a CompanyAdmin and a SysAdmin manage webhooks, and no other role', async () => {
    const events = ['upload.completed'];
    for (const token of [userA, sysUser]) {
      expect((await create(token, { url: `${receiver.url}/refused`, events })).status).toBe(403);
      expect((await call(`${server.api}${hooks}`, { token })).status).toBe(403);
    }
    const own = await created(adminA, { url: `${receiver.url}/matrix-a`, events });
    expect(own.company_id).toBe(companyA.id);
    expect(own.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const portalWide = await created(sysAdmin, { url: `${receiver.url}/matrix-all`, events });
    expect(portalWide.company_id).toBeNull();
    const forB = await created(sysAdmin, { url: `${receiver.url}/matrix-b`, events, company_id: companyB.id });
    expect(forB.company_id).toBe(companyB.id);

    // A CompanyAdmin sees their own company's only; another company's id answers 404, as one that does not exist.
    const listedByA = (await call(`${server.api}${hooks}`, { token: adminA })).body.data as { id: number }[];
    expect(listedByA.map((w) => w.id)).toContain(own.id);
    expect(listedByA.map((w) => w.id)).not.toContain(forB.id);
    expect(listedByA.map((w) => w.id)).not.toContain(portalWide.id);
    expect(JSON.stringify(listedByA)).not.toContain('whsec_');
    expect((await call(`${server.api}${hooks}?company_id=${companyB.id}`, { token: adminA })).status).toBe(404);
    expect((await call(`${server.api}${hooks}/${forB.id}/deliveries`, { token: adminA })).status).toBe(404);
    expect((await call(`${server.api}${hooks}/${forB.id}`, { method: 'DELETE', token: adminA })).status).toBe(404);
    expect((await call(`${server.api}${hooks}/${portalWide.id}`, { method: 'DELETE', token: adminB })).status).toBe(404);
    expect((await create(adminA, { url: `${receiver.url}/x`, events, company_id: companyB.id })).status).toBe(404);
    expect((await create(adminA, { url: `${receiver.url}/x`, events, company_id: null })).status).toBe(403);
    expect((await create(sysAdmin, { url: `${receiver.url}/x`, events, company_id: 999_999 })).status).toBe(404);
    const allBySys = (await call(`${server.api}${hooks}`, { token: sysAdmin })).body.data as { id: number }[];
    expect(allBySys.map((w) => w.id)).toEqual(expect.arrayContaining([own.id, portalWide.id, forB.id]));
    const onlyB = (await call(`${server.api}${hooks}?company_id=${companyB.id}`, { token: sysAdmin })).body.data as { id: number }[];
    expect(onlyB.map((w) => w.id)).toEqual([forB.id]);

    // Deleted by their owners; the trail says so, and the secret is nowhere in it or in the database in clear.
    for (const [token, id] of [[adminA, own.id], [sysAdmin, portalWide.id], [sysAdmin, forB.id]] as const) {
      expect((await call(`${server.api}${hooks}/${id}`, { method: 'DELETE', token })).status).toBe(204);
      expect((await call(`${server.api}${hooks}/${id}/deliveries`, { token })).status).toBe(404);
    }
    const trail = await server.services.handle.db.selectFrom('audit_log').selectAll().where('action', 'like', 'webhook.%').execute();
    expect(trail.filter((r) => r.action === 'webhook.created').map((r) => Number(r.object_id))).toEqual(expect.arrayContaining([own.id, portalWide.id, forB.id]));
    expect(trail.filter((r) => r.action === 'webhook.deleted')).toHaveLength(3);
    expect(trail.find((r) => r.object_id === String(own.id))?.company_id).toBe(companyA.id);
    const everything = JSON.stringify(trail) + JSON.stringify(await server.services.handle.db.selectFrom('webhook_endpoints').selectAll().execute());
    for (const secret of [own.secret, portalWide.secret, forB.secret]) {
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain(secret.slice('whsec_'.length));
    }
  });

  it('refuses an address that is not a web address, or an event it does not know, in words', async () => {
    const bad = await create(adminA, { url: 'hooks.example.org', events: ['upload.completed'] });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('The address must be a full web address, such as https://hooks.example.org/portal');
    const ftp = await create(adminA, { url: 'ftp://hooks.example.org/', events: ['upload.completed'] });
    expect(ftp.status).toBe(422);
    expect((await create(adminA, { url: `${receiver.url}/x`, events: ['file.exploded'] })).status).toBe(400);
    const none = await create(adminA, { url: `${receiver.url}/x`, events: [] });
    expect(none.status).toBe(400);
    expect(none.body.message).toContain('Choose at least one event');
  });

  it('tells a company’s endpoint and the portal-wide one of its upload, signed, within 10 s; another company’s hears nothing', async () => {
    const events = ['upload.completed', 'upload.processed'];
    const hookA = await created(adminA, { url: `${receiver.url}/a`, events });
    const hookB = await created(adminB, { url: `${receiver.url}/b`, events });
    const hookAll = await created(sysAdmin, { url: `${receiver.url}/all`, events: ['upload.processed'] });
    const project = await makeProject(server.services, companyA, 'Signed cohort');
    const sent = Date.now();
    const answer = await upload(server.api, userA, { name: 'ct.dcm', data: dicomFixture('s01_CT_small.dcm') }, project.id);
    expect(answer.status).toBe(201);
    const fileId = answer.body.data[0].id as number;
    await waitProcessed(server.api, userA, project.id, fileId);
    const got = await receiver.waitFor((r) => r.filter((h) => h.path === '/a').length >= 2 && r.some((h) => h.path === '/all'));
    const toA = got.filter((h) => h.path === '/a');
    const toAll = got.filter((h) => h.path === '/all');
    for (const hook of [...toA, ...toAll]) expect(hook.at - sent).toBeLessThan(10_000);

    const bodies = toA.map((h) => ZWebhookBody.parse(verify(hookA.secret, h)));
    expect(bodies.map((b) => b.type).sort()).toEqual(['upload.completed', 'upload.processed']);
    const processed = bodies.find((b) => b.type === 'upload.processed')!;
    expect(processed.data).toMatchObject({
      file_id: fileId,
      kind: 'upload',
      file_name: 'ct.dcm',
      project: { id: project.id, name: 'Signed cohort' },
      company: { id: companyA.id, name: companyA.companyname },
      processing: { status: 'ready', studies: 1, series: 1, instances: 1 },
    });
    expect(ZWebhookBody.parse(verify(hookAll.secret, toAll[0]!)).type).toBe('upload.processed');
    // Each endpoint has its own secret: a message to one does not verify with another's.
    expect(() => verify(hookB.secret, toA[0]!)).toThrow();
    // No patient's name or id in anything sent.
    for (const hook of [...toA, ...toAll]) {
      expect(hook.body).not.toContain(PATIENT_NAME);
      expect(hook.body).not.toContain(PATIENT_ID);
    }
    // Company B's endpoint heard nothing of company A's upload.
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received.filter((h) => h.path === '/b')).toEqual([]);
    const logA = await log(adminA, hookA.id);
    expect(logA.map((d) => [d.event, d.status, d.attempts])).toEqual(
      expect.arrayContaining([
        ['upload.completed', 'delivered', 1],
        ['upload.processed', 'delivered', 1],
      ]),
    );
    expect(await log(adminB, hookB.id)).toEqual([]);
  });

  it('has the library refuse a tampered message and a stale one', async () => {
    const hook = await created(adminA, { url: `${receiver.url}/verify`, events: ['upload.completed'] });
    const project = await makeProject(server.services, companyA, 'Verified cohort');
    await upload(server.api, userA, { name: 'verify.dcm', data: dicomFixture('s01_CT_small.dcm') }, project.id);
    const [message] = (await receiver.waitFor((r) => r.some((h) => h.path === '/verify'))).filter((h) => h.path === '/verify');
    expect(verify(hook.secret, message!)).toMatchObject({ type: 'upload.completed' });

    const tampered = { ...message!, body: message!.body.replace('verify.dcm', 'other.dcm') };
    expect(() => verify(hook.secret, tampered)).toThrow(/signature/i);
    const otherId = { ...message!, headers: { ...message!.headers, 'webhook-id': 'msg_replayed' } };
    expect(() => verify(hook.secret, otherId)).toThrow(/signature/i);

    // A message signed properly, but ten minutes ago: refused as too old, however good its signature.
    const then = new Date(Date.now() - 10 * 60_000);
    const stale = {
      ...message!,
      headers: {
        ...message!.headers,
        'webhook-timestamp': String(Math.floor(then.getTime() / 1000)),
        'webhook-signature': new Webhook(hook.secret).sign(message!.headers['webhook-id']!, then, message!.body),
      },
    };
    expect(() => verify(hook.secret, stale)).toThrow(/too old/i);
  });

  it('retries a message its receiver answered 500, with the same id, and logs each attempt', async () => {
    receiver.answer('/flaky', 500);
    const hook = await created(adminA, { url: `${receiver.url}/flaky`, events: ['upload.completed'] });
    const project = await makeProject(server.services, companyA, 'Retried cohort');
    await upload(server.api, userA, { name: 'retry.dcm', data: dicomFixture('s01_CT_small.dcm') }, project.id);
    await receiver.waitFor((r) => r.some((h) => h.path === '/flaky'));
    let entry: Record<string, unknown> | undefined;
    for (let i = 0; i < 100 && entry?.last_status_code !== 500; i += 1) {
      entry = (await log(adminA, hook.id))[0];
      if (entry?.last_status_code !== 500) await new Promise((r) => setTimeout(r, 50));
    }
    expect(entry).toMatchObject({ event: 'upload.completed', status: 'retrying', last_status_code: 500, last_error: 'The receiver answered 500' });

    receiver.answer('/flaky', 200);
    let final: Record<string, unknown> | undefined;
    for (let i = 0; i < 200 && final?.status !== 'delivered'; i += 1) {
      final = (await log(adminA, hook.id))[0];
      if (final?.status !== 'delivered') await new Promise((r) => setTimeout(r, 50));
    }
    expect(final).toMatchObject({ status: 'delivered', last_status_code: 200, last_error: null });
    expect(final!.attempts as number).toBeGreaterThanOrEqual(2);
    const attempts = receiver.received.filter((h) => h.path === '/flaky');
    expect(attempts.length).toBe(final!.attempts);
    expect(new Set(attempts.map((h) => h.headers['webhook-id'])).size).toBe(1);
    for (const attempt of attempts) expect(verify(hook.secret, attempt)).toMatchObject({ type: 'upload.completed' });
  });

  it('gives up on an attempt its receiver does not answer in time, and says so', async () => {
    receiver.answer('/slow', 'hang');
    const hook = await created(adminA, { url: `${receiver.url}/slow`, events: ['upload.completed'] });
    const project = await makeProject(server.services, companyA, 'Slow cohort');
    await upload(server.api, userA, { name: 'slow.dcm', data: dicomFixture('s01_CT_small.dcm') }, project.id);
    let entry: Record<string, unknown> | undefined;
    for (let i = 0; i < 100 && !entry?.last_error; i += 1) {
      entry = (await log(adminA, hook.id))[0];
      if (!entry?.last_error) await new Promise((r) => setTimeout(r, 100));
    }
    expect(entry).toMatchObject({ status: 'retrying', last_status_code: null, last_error: 'The receiver did not answer within 1 second' });
    // Deleting the endpoint drops what was still queued for it.
    expect((await call(`${server.api}${hooks}/${hook.id}`, { method: 'DELETE', token: adminA })).status).toBe(204);
  });

  it('tells of a review decision through the exported reaction', async () => {
    const hook = await created(sysAdmin, { url: `${receiver.url}/reviewed`, events: ['upload.rejected', 'upload.accepted'] });
    const project = await makeProject(server.services, companyB, 'Reviewed cohort');
    const file = await insertReadyFile(server, project.id, companyB.id, 'reviewed.dcm');
    await server.services.handle.db.updateTable('project_files').set({ review_state: 'rejected', review_reason: 'missing_series', review_note: '' }).where('id', '=', file).execute();
    await server.services.notifications.notifier.reviewed(file, companyB.id, 'rejected');
    const [message] = (await receiver.waitFor((r) => r.some((h) => h.path === '/reviewed'))).filter((h) => h.path === '/reviewed');
    const body = ZWebhookBody.parse(verify(hook.secret, message!));
    expect(body).toMatchObject({ type: 'upload.rejected', data: { file_id: file, review: { decision: 'rejected', reason: { code: 'missing_series', text: '' } }, company: { id: companyB.id } } });
  });
});

describe.each(dialects())('webhooks without WEBHOOK_ALLOW_PRIVATE on %s', (dialect) => {
  let server: TestServer;
  let admin: string;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    admin = await login(server.api, (await makeUser(server.services, { role: ROLES.SysAdmin })).username, PASSWORD);
  });
  afterAll(() => server?.close());

  it.each([
    ['https://127.0.0.1/hook', '127.0.0.1'],
    ['https://localhost:8443/hook', 'localhost (127.0.0.1)'],
    ['https://10.1.2.3/hook', '10.1.2.3'],
    ['https://192.168.0.10/hook', '192.168.0.10'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254'],
    ['https://[::1]/hook', '::1'],
    ['https://[fe80::1]/hook', 'fe80::1'],
    ['https://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1'],
  ])('refuses %s, a loopback, private or link-local address', async (url, named) => {
    const answer = await call(`${server.api}/admin/webhooks`, { token: admin, json: { url, events: ['upload.completed'] } });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toBe(`The address ${named} is on a loopback, private or link-local network; the portal sends webhooks only to public addresses`);
  });

  it('refuses plain http', async () => {
    const answer = await call(`${server.api}/admin/webhooks`, { token: admin, json: { url: 'http://93.184.215.14/hook', events: ['upload.completed'] } });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toBe('The address must start with https:// (such as https://hooks.example.org/portal)');
  });
});
