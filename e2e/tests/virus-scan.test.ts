// Virus scanning (issue 37 item 4) as a user sees it: with a real clamd, an uploaded DICOM file that
// carries the test signature's bytes shows in its row as infected, the signature named in words,
// with no download offered; at desktop and phone width.
import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { apiLogin } from '../src/api.js';
import { captureScreen, captureScreenInDark, launchBrowser, type Session } from '../src/browser.js';
import { SIGNATURE, startClamd, VIRUS_MARKER, type Clamd } from '../src/clamd.js';
import { CT_SMALL, dicomPath } from '../src/files.js';
import { startPortal, type Portal } from '../src/portal.js';
import { signInWithProject } from '../src/project-setup.js';
import { tearDownSuite } from '../src/suite.js';
import { fileRow } from '../src/ui.js';

const USER = { username: 'hilde', password: 'Sc4nned!Files' };
const INFECTED = 'from-the-pacs.dcm';

let clamd: Clamd;
let portal: Portal;
let browser: Browser;
let session: Session;
let projectId: number;

beforeAll(async () => {
  clamd = await startClamd();
  [portal, browser] = await Promise.all([startPortal({ CLAMD_SOCKET: clamd.socket }), launchBrowser()]);
  ({ session, projectId } = await signInWithProject(portal, browser, {
    company: 'Levi Imaging',
    user: { ...USER, firstname: 'Hilde', lastname: 'Levi' },
    project: 'Scanned uploads',
  }));
  const { token } = await apiLogin(portal.url, USER.username, USER.password);
  const form = new FormData();
  form.append('studypetitionid', String(projectId));
  form.append('file', new Blob([new Uint8Array(Buffer.concat([await readFile(dicomPath(CT_SMALL)), Buffer.from(VIRUS_MARKER)]))]), INFECTED);
  const sent = await fetch(`${portal.url}/api/v1/upload-study-petitions-files`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  expect(sent.status).toBe(201);
});

tearDownSuite(() => ({ session, browser, portal, others: [clamd] }));

describe('an infected upload', () => {
  test('its row says it is infected, names the signature and offers no download, on a desktop and on a phone', async () => {
    const { page } = session;
    await page.goto(`/study/${projectId}`);
    const row = fileRow(page, INFECTED);
    await row.getByLabel('Virus scan: Infected').waitFor({ timeout: 60_000 });
    await row.getByText(`The virus scan found this file infected with ${SIGNATURE}. It cannot be downloaded: delete it and ask the sender for a clean copy.`).waitFor();
    expect(await row.getByRole('button', { name: `Download ${INFECTED}` }).isDisabled()).toBe(true);
    await captureScreen(page, 'virus-scan-infected-row');
    await captureScreenInDark(page, 'virus-scan-infected-row');
    await page.setViewportSize({ width: 390, height: 844 });
    const card = page.getByRole('list', { name: 'Project files' }).getByRole('listitem', { name: INFECTED });
    await card.getByLabel('Virus scan: Infected').waitFor();
    await card.getByText(`infected with ${SIGNATURE}`, { exact: false }).waitFor();
    expect(await card.getByRole('button', { name: `Download ${INFECTED}` }).isDisabled()).toBe(true);
    // No sideways scrolling: the signature's words wrap within the phone's width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await card.scrollIntoViewIfNeeded();
    await captureScreen(page, 'virus-scan-infected-row-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  }, 120_000);
});
