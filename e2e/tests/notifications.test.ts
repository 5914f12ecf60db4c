// Issue 35 item 3 in a real browser: a user chooses in the avatar menu's 'Notifications' which events
// of their projects to be e-mailed about; a SysAdmin adds a webhook in the administration and copies
// its secret, shown once. An upload then reaches the user's mailbox (a real SMTP server started here)
// and the webhook receiver, whose message verifies with that secret by the Standard Webhooks library;
// the endpoint's log says it was delivered. Screens captured at 1280 and 390 px (e2e/screenshots).
import { openAsBlob } from 'node:fs';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestSmtp, type TestSmtp } from '../../server/test/smtp.js';
import { startReceiver, type TestReceiver } from '../../server/test/webhook-receiver.js';
import { apiCreateProject, apiLogin } from '../src/api.js';
import { captureScreen, launchBrowser, openSession, type Session } from '../src/browser.js';
import { CT_SMALL, dicomPath } from '../src/files.js';
import { startPortal, type Portal } from '../src/portal.js';
import { tearDownSuite } from '../src/suite.js';
import { openAccountMenu, signIn, toast } from '../src/ui.js';

const SENDER = { username: 'perdita', password: 'Bohemia-Sh3pherd', firstname: 'Perdita', lastname: 'Florizel', email: 'perdita@bohemia.example' };
const ADMIN = { username: 'hermione', password: 'Sicilia-St4tue!', firstname: 'Hermione', lastname: 'Leontes' };
const PROJECT = 'Bohemia Spine Study';

let portal: Portal;
let browser: Browser;
let smtp: TestSmtp;
let receiver: TestReceiver;
let sender: Session;
let admin: Session;
let senderToken: string;
let projectId: number;
let secret: string;

async function shoot(session: Session, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await session.page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    await captureScreen(session.page, `${name}-${width}`);
  }
  await session.page.setViewportSize({ width: 1280, height: 800 });
}

beforeAll(async () => {
  [smtp, receiver, browser] = await Promise.all([startTestSmtp(), startReceiver(), launchBrowser()]);
  portal = await startPortal({ SMTP_URL: smtp.url, MAIL_FROM: 'portal@portal.example', WEBHOOK_ALLOW_PRIVATE: 'true' });
  const hospital = await portal.createCompany('Bohemia Hospital');
  await portal.createUser({ companyId: hospital, ...SENDER, role: 'User' });
  const operator = await portal.createCompany('Portal Operator');
  await portal.createUser({ companyId: operator, ...ADMIN, role: 'SysAdmin' });
  senderToken = (await apiLogin(portal.url, SENDER.username, SENDER.password)).token;
  projectId = await apiCreateProject(portal.url, senderToken, PROJECT);
  [sender, admin] = await Promise.all([openSession(browser, portal.url), openSession(browser, portal.url)]);
  await signIn(sender.page, SENDER);
  await signIn(admin.page, ADMIN);
});

tearDownSuite(() => ({ session: admin, browser, portal }));
afterAll(async () => {
  await Promise.all([smtp?.close(), receiver?.close()]);
});

describe('people told of what arrives', () => {
  test('a user chooses the events to be e-mailed about in the avatar menu, and the choice is kept', async () => {
    const { page } = sender;
    const menu = await openAccountMenu(page, `${SENDER.firstname} ${SENDER.lastname}`);
    await menu.getByRole('menuitem', { name: 'Notifications' }).click();
    const dialog = page.getByRole('dialog', { name: 'Notifications' });
    await dialog.getByRole('checkbox', { name: 'Uploads: Processed (or failed)' }).check();
    await dialog.getByRole('radio', { name: 'At once: one e-mail per event' }).check();
    await shoot(sender, 'notifications-settings');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await toast(page, 'Notification settings saved').waitFor();
    await page.reload();
    const again = await openAccountMenu(page, `${SENDER.firstname} ${SENDER.lastname}`);
    await again.getByRole('menuitem', { name: 'Notifications' }).click();
    const reopened = page.getByRole('dialog', { name: 'Notifications' });
    await expect.poll(() => reopened.getByRole('checkbox', { name: 'Uploads: Processed (or failed)' }).isChecked()).toBe(true);
    expect(await reopened.getByRole('checkbox', { name: 'Uploads: Rejected' }).isChecked()).toBe(false);
    await reopened.getByRole('button', { name: 'Cancel' }).click();
  });

  test('a SysAdmin adds a webhook for every company and sees its secret once', async () => {
    const { page } = admin;
    const menu = await openAccountMenu(page, `${ADMIN.firstname} ${ADMIN.lastname}`);
    await menu.getByRole('menuitem', { name: 'Administration' }).click();
    await page.getByRole('tab', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: 'Add Webhook' }).click();
    const form = page.getByRole('dialog', { name: 'Add Webhook' });
    await form.getByRole('textbox', { name: /Address/ }).fill(`${receiver.url}/portal`);
    await form.getByRole('checkbox', { name: 'Uploads: Processed (or failed)' }).check();
    await form.getByRole('button', { name: 'Create' }).click();
    const created = page.getByRole('dialog', { name: 'Webhook created' });
    secret = await created.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await shoot(admin, 'notifications-webhook-created');
    await created.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Webhooks' }).textContent()).toContain(`${receiver.url}/portal`);
  });

  test('an upload reaches the mailbox and the webhook, signed, and the log says it was delivered', async () => {
    const form = new FormData();
    form.append('studypetitionid', String(projectId));
    form.append('file', await openAsBlob(dicomPath(CT_SMALL)), 'spine-ct.dcm');
    const sent = await fetch(`${portal.url}/api/v1/upload-study-petitions-files`, { method: 'POST', headers: { authorization: `Bearer ${senderToken}` }, body: form });
    expect(sent.status).toBe(201);

    const [mail] = await smtp.waitFor(1);
    expect(mail!.to).toEqual([SENDER.email]);
    expect(mail!.text).toContain('spine-ct.dcm');
    expect(mail!.text).toContain(PROJECT);

    const [hook] = await receiver.waitFor((r) => r.some((h) => h.path === '/portal'), 30_000);
    const body = new Webhook(secret).verify(hook!.body, hook!.headers) as { type: string; data: { file?: { name?: string } } };
    expect(body.type).toBe('upload.processed');
    expect(hook!.body).toContain('spine-ct.dcm');
    // Tampered with, it no longer verifies.
    expect(() => new Webhook(secret).verify(hook!.body.replace('spine-ct', 'spine-mr'), hook!.headers)).toThrow();

    const { page } = admin;
    await page.getByRole('button', { name: `Deliveries log of ${receiver.url}/portal` }).click();
    const log = page.getByRole('dialog', { name: 'Deliveries log' });
    await expect.poll(() => log.textContent(), { timeout: 15_000 }).toContain('Delivered');
    await shoot(admin, 'notifications-webhook-log');
    await log.getByRole('button', { name: 'Close' }).click();
  });
});
