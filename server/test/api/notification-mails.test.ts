// E-mail notifications (issue 35): each user's choice of events (GET/PUT /me/notifications), sent
// at once or in a daily digest through a real SMTP server started here; a company's users hear
// only their company's projects, SysUsers and SysAdmins may follow every company's deliveries.
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CompanyRow, UserRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { startTestSmtp, type ReceivedMail, type TestSmtp } from '../smtp.js';
import { createUpload } from '../tus.js';
import { dicomFixture, queueDrained, upload, waitProcessed } from '../uploads.js';
import { insertReadyFile } from '../ready-file.js';

const DIGEST_HOUR = 7;

describe.each(dialects())('notification e-mails on %s', (dialect) => {
  let server: TestServer;
  let smtp: TestSmtp;
  let now = Date.parse('2026-11-29T05:00:00Z');
  let companyA: CompanyRow;
  let companyB: CompanyRow;

  beforeAll(async () => {
    smtp = await startTestSmtp();
    server = await startTestServer(
      dialect,
      { SMTP_URL: smtp.url, MAIL_FROM: 'portal@example.org', PUBLIC_URL: 'https://portal.example.org', NOTIFY_DIGEST_HOUR_UTC: String(DIGEST_HOUR) },
      { jobs: true, clock: () => now },
    );
    companyA = await makeCompany(server.services, `Clinic A ${dialect}`);
    companyB = await makeCompany(server.services, `Clinic B ${dialect}`);
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });
  beforeEach(() => {
    smtp.received.length = 0;
  });

  /** A user with an e-mail address, signed in. */
  const person = async (company: CompanyRow | undefined, role: (typeof ROLES)[keyof typeof ROLES] = ROLES.User) => {
    const user = await makeUser(server.services, { ...(company ? { company } : {}), role });
    const email = `${user.username}@example.org`;
    await server.services.handle.db.updateTable('users').set({ email }).where('id', '=', user.id).execute();
    return { user: { ...user, email } as UserRow & { email: string }, token: await login(server.api, user.username, PASSWORD) };
  };
  const choose = (token: string, json: unknown) => call(`${server.api}/me/notifications`, { method: 'PUT', token, json });
  // The test server undoes quoted-printable byte by byte: the bytes of UTF-8 text, read back as such.
  const mailsTo = (email: string) => smtp.received.filter((m) => m.to.includes(email)).map((m) => ({ ...m, text: Buffer.from(m.text, 'latin1').toString('utf8') }));
  // Every job queued so far has ended: a mail not received by then is never sent.
  const settle = () => queueDrained(server.services.handle.db);

  it('answers and keeps each user’s own choice, refusing what their role may not choose', async () => {
    const { user, token } = await person(companyA);
    const initial = await call(`${server.api}/me/notifications`, { token });
    expect(initial.status).toBe(200);
    expect(initial.body.data[0]).toEqual({ events: [], mode: 'immediate', all_projects: false, email: user.email, mail_configured: true });
    const saved = await choose(token, { events: ['upload.processed', 'delivery.rejected', 'upload.processed'], mode: 'daily' });
    expect(saved.status).toBe(200);
    expect(saved.body.data[0]).toMatchObject({ events: ['upload.processed', 'delivery.rejected'], mode: 'daily', all_projects: false });
    expect((await call(`${server.api}/me/notifications`, { token })).body.data[0].mode).toBe('daily');

    const everyCompany = await choose(token, { events: ['delivery.completed'], mode: 'immediate', all_projects: true });
    expect(everyCompany.status).toBe(422);
    expect(everyCompany.body.message).toBe('Only SysUsers and SysAdmins can follow every company’s projects');
    expect((await choose(token, { events: ['file.exploded'], mode: 'immediate' })).status).toBe(400);
    expect((await choose(token, { events: [], mode: 'hourly' })).status).toBe(400);
    expect((await call(`${server.api}/me/notifications`)).status).toBe(401);

    const staff = await person(undefined, ROLES.SysUser);
    expect((await choose(staff.token, { events: ['delivery.completed'], mode: 'immediate', all_projects: true })).body.data[0].all_projects).toBe(true);
  });

  it('e-mails a company’s users at once of its upload, received and processed; another company’s hear nothing', async () => {
    const a = await person(companyA);
    const b = await person(companyB);
    await choose(a.token, { events: ['upload.completed', 'upload.processed'], mode: 'immediate' });
    await choose(b.token, { events: ['upload.completed', 'upload.processed', 'delivery.completed'], mode: 'immediate' });
    const project = await makeProject(server.services, companyA, 'Cardiac cohort');
    const answer = await upload(server.api, a.token, { name: 'heart.dcm', data: dicomFixture('s01_CT_small.dcm') }, project.id);
    await waitProcessed(server.api, a.token, project.id, answer.body.data[0].id as number);
    await waitForMails(a.user.email, 2);
    const texts = mailsTo(a.user.email).map((m) => m.text);
    expect(texts.find((t) => t.includes('Subject: Secure Upload Portal: An upload was received'))).toContain(
      `The upload “heart.dcm” in project “Cardiac cohort” (${companyA.companyname}) was received. https://portal.example.org/study/${project.id}`,
    );
    expect(texts.find((t) => t.includes('Subject: Secure Upload Portal: An upload was processed'))).toContain(
      `The upload “heart.dcm” in project “Cardiac cohort” (${companyA.companyname}) was processed: 1 study, 1 series, 1 instance.`,
    );
    for (const text of texts) expect(text).not.toContain('CompressedSamples');
    await settle();
    expect(mailsTo(b.user.email)).toEqual([]);
  });

  it('e-mails the reason when processing fails', async () => {
    const a = await person(companyA);
    await choose(a.token, { events: ['upload.processed'], mode: 'immediate' });
    const project = await makeProject(server.services, companyA, 'Broken cohort');
    const broken = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(200, 7)]);
    const answer = await upload(server.api, a.token, { name: 'broken.zip', data: broken }, project.id);
    expect(answer.status).toBe(201);
    const row = await waitProcessed(server.api, a.token, project.id, answer.body.data[0].id as number);
    expect(row.processing.status).toBe('failed');
    const [mail] = await waitForMails(a.user.email, 1);
    expect(mail!.text).toContain(`The upload “broken.zip” in project “Broken cohort” (${companyA.companyname}) could not be processed: ${row.processing.error as string}`);
  });

  it('e-mails SysUsers who follow every company of each new delivery, and not of single uploads', async () => {
    const staff = await person(undefined, ROLES.SysUser);
    const other = await person(undefined, ROLES.SysAdmin);
    await choose(staff.token, { events: ['delivery.completed'], mode: 'immediate', all_projects: true });
    await choose(other.token, { events: ['delivery.completed'], mode: 'immediate' });
    const partner = await person(companyB);
    const project = await makeProject(server.services, companyB, 'Delivered cohort');
    const delivery = (await call(`${server.api}/deliveries`, { token: partner.token, json: { studypetitionid: project.id, name: 'CD export' } })).body.data[0].id as number;
    const data = dicomFixture('s01_CT_small.dcm');
    const sent = await createUpload(server.api, partner.token, {
      size: data.length,
      body: data,
      metadata: `filename ${Buffer.from('IM1').toString('base64')},delivery ${Buffer.from(String(delivery)).toString('base64')},relativePath ${Buffer.from('DICOM/IM1').toString('base64')}`,
    });
    expect(sent.status).toBe(201);
    expect((await call(`${server.api}/deliveries/${delivery}/complete`, { method: 'POST', token: partner.token })).status).toBe(200);
    await upload(server.api, partner.token, { name: 'single.dcm', data }, project.id);
    const [mail] = await waitForMails(staff.user.email, 1);
    expect(mail!.text).toContain('Subject: Secure Upload Portal: A delivery was received');
    expect(mail!.text).toContain(`The delivery “CD export” in project “Delivered cohort” (${companyB.companyname}) was received.`);
    await settle();
    expect(mailsTo(staff.user.email)).toHaveLength(1);
    // Without all_projects a SysAdmin hears only their own company's projects.
    expect(mailsTo(other.user.email)).toEqual([]);
  });

  it('gathers a daily digest and sends it once a day, from its hour on', async () => {
    const d = await person(companyA);
    await choose(d.token, { events: ['upload.accepted', 'upload.rejected'], mode: 'daily' });
    const project = await makeProject(server.services, companyA, 'Digest cohort');
    const first = await insertReadyFile(server, project.id, companyA.id, 'first.dcm');
    const second = await insertReadyFile(server, project.id, companyA.id, 'second.dcm');
    await server.services.handle.db
      .updateTable('project_files')
      .set({ review_state: 'rejected', review_reason: 'wrong_study', review_note: 'Send the CT of the same visit.' })
      .where('id', '=', second)
      .execute();
    await server.services.notifications.notifier.reviewed(first, companyA.id, 'accepted');
    await server.services.notifications.notifier.reviewed(second, companyA.id, 'rejected');
    await settle();
    expect(mailsTo(d.user.email)).toEqual([]);

    const digest = server.services.notifications.digest;
    now = Date.parse('2026-11-29T06:59:00Z');
    expect(await digest.queueIfDue()).toBe(false);
    now = Date.parse('2026-11-29T07:00:00Z');
    expect(await digest.queueIfDue()).toBe(true);
    const [mail] = await waitForMails(d.user.email, 1);
    expect(mail!.text).toContain('Subject: Secure Upload Portal: your daily digest for 2026-11-29 (2 events)');
    expect(mail!.text).toContain(`The upload “first.dcm” in project “Digest cohort” (${companyA.companyname}) was accepted by the receiving team.`);
    expect(mail!.text).toContain(`The upload “second.dcm” in project “Digest cohort” (${companyA.companyname}) was rejected by the receiving team: Wrong study: Send the CT of the same visit.`);
    expect(mail!.text.indexOf('first.dcm')).toBeLessThan(mail!.text.indexOf('second.dcm'));

    now = Date.parse('2026-11-29T21:00:00Z');
    expect(await digest.queueIfDue()).toBe(false);
    await server.services.notifications.notifier.reviewed(first, companyA.id, 'rejected');
    now = Date.parse('2026-11-30T07:30:00Z');
    expect(await digest.queueIfDue()).toBe(true);
    await waitForMails(d.user.email, 2);
    const next = mailsTo(d.user.email)[1]!;
    expect(next.text).toContain('your daily digest for 2026-11-30 (1 event)');
    expect(next.text).not.toContain('second.dcm');
  });

  /** The mails to `email` once `count` have arrived (10 s at most). */
  async function waitForMails(email: string, count: number): Promise<ReceivedMail[]> {
    for (let i = 0; i < 400 && mailsTo(email).length < count; i += 1) await new Promise((r) => setTimeout(r, 25));
    expect(mailsTo(email).length, `mails received: ${smtp.received.map((m) => m.to.join(',')).join(' | ')}`).toBeGreaterThanOrEqual(count);
    return mailsTo(email);
  }
});
