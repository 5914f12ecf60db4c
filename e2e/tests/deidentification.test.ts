// Issue 33 items 3 and 7 in a real browser: a project set to the basic profile receives a CD
// export, picked with Select Folder, into which identity was planted at the top level, two and
// three sequences deep and in private attributes. A relay between the browser and the server reads
// every request body: none of the planted values is ever sent, and none is anywhere under the
// server's DATA_DIR (database, objects, work area) or in its log once the delivery is processed.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="../../deid/src/dcmjs.d.ts" />
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import dcmjs, { type Dict } from 'dcmjs';
import type { Browser, Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { apiListFiles, apiLogin } from '../src/api.js';
import { launchBrowser, openSession, type Session } from '../src/browser.js';
import { CT_SERIES, dicomPath, makeWorkspace, type Workspace } from '../src/files.js';
import { startPortal, type Portal } from '../src/portal.js';
import { tearDownSuite } from '../src/suite.js';
import { eventually, signIn, uploadRow } from '../src/ui.js';

const USER = { username: 'horatio', password: 'Elsin0re-Watch!' };
const ADMIN = { username: 'marcellus', password: 'Ramp4rts-Night!' };
const LINE = 'Patient identity is removed on this computer before upload: Basic profile, dates shifted';

/** What a PACS export carries about the patient, planted so that any leak of it can be found. */
const PLANTED = {
  name: 'Plantedname^Ophelia',
  id: 'PLANTID-4471',
  birth: '19340817',
  accession: 'ACCPLANT99',
  institution: 'Elsinore Planted Hospital',
  referrer: 'Plantedreferrer^Polonius',
  nested: 'Nestedplanted^Laertes',
  deeper: 'Deeperplanted^Gertrude',
  otherId: 'OTHERPLANT-0815',
  privateValue: 'PRIVATEPLANT-SECRET',
};

let portal: Portal;
let browser: Browser;
let session: Session;
let workspace: Workspace;
let relay: BodyRelay;
let token: string;
let cdDir: string;

/** A relay that keeps every request body (method, path, bytes) before passing it on. */
interface BodyRelay {
  url: string;
  bodies: Array<{ method: string; url: string; headers: string; body: Buffer }>;
  close(): Promise<void>;
}

async function startBodyRelay(target: string): Promise<BodyRelay> {
  const portalUrl = new URL(target);
  const bodies: BodyRelay['bodies'] = [];
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const body = Buffer.concat(parts);
      bodies.push({ method: request.method ?? '', url: request.url ?? '', headers: JSON.stringify(request.headers), body });
      const upstream = http.request({ host: portalUrl.hostname, port: portalUrl.port, method: request.method, path: request.url, headers: request.headers, agent }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(response);
      });
      upstream.on('error', () => response.destroy());
      upstream.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    async close() {
      server.closeAllConnections();
      server.close();
      agent.destroy();
      await once(server, 'close');
    },
  };
}

const item = (dict: Dict) => dict;
const pn = (name: string) => ({ vr: 'PN', Value: [{ Alphabetic: name }] });
const lo = (text: string) => ({ vr: 'LO', Value: [text] });

/** A real CT slice with identity planted where exports carry it; written as Part 10 by dcmjs. */
async function plantedCopy(source: string, target: string): Promise<void> {
  const bytes = await readFile(source);
  const file = dcmjs.data.DicomMessage.readFile(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const dict = file.dict;
  Object.assign(dict, {
    '00100010': pn(PLANTED.name),
    '00100020': lo(PLANTED.id),
    '00100030': { vr: 'DA', Value: [PLANTED.birth] },
    '00080050': { vr: 'SH', Value: [PLANTED.accession] },
    '00080080': lo(PLANTED.institution),
    '00080090': pn(PLANTED.referrer),
    // Other Patient IDs Sequence: one sequence deep.
    '00101002': { vr: 'SQ', Value: [item({ '00100020': lo(PLANTED.otherId) })] },
    // Content Sequence, person names two and three sequences deep.
    '0040A730': {
      vr: 'SQ',
      Value: [item({ '0040A123': pn(PLANTED.nested), '0040A730': { vr: 'SQ', Value: [item({ '0040A123': pn(PLANTED.deeper) })] } })],
    },
    // A vendor's private block: creator and one value.
    '00090010': lo('PLANTED VENDOR'),
    '00091001': lo(PLANTED.privateValue),
  });
  file.dict = dict;
  await writeFile(target, Buffer.from(file.write()));
}

beforeAll(async () => {
  [portal, browser, workspace] = await Promise.all([startPortal(), launchBrowser(), makeWorkspace()]);
  // A CD export: DICOMDIR at the top, images without extensions two folders down, a README.
  cdDir = path.join(workspace.dir, 'PATIENTCD');
  const series = path.join(cdDir, 'DICOM', 'ST000001', 'SE000001');
  await mkdir(series, { recursive: true });
  await writeFile(path.join(cdDir, 'DICOMDIR'), await readFile(dicomPath('s40_DICOMDIR')));
  await writeFile(path.join(cdDir, 'README.TXT'), 'Insert this CD and run the viewer to see the images.\n');
  for (const [i, name] of CT_SERIES.entries()) await plantedCopy(dicomPath(name), path.join(series, `IM${String(i + 1).padStart(6, '0')}`));

  const companyId = await portal.createCompany('Elsinore Imaging');
  await portal.createUser({ companyId, ...USER, firstname: 'Horatio', lastname: 'Scholar', role: 'User' });
  const adminCompany = await portal.createCompany('Portal Operator');
  await portal.createUser({ companyId: adminCompany, ...ADMIN, firstname: 'Marcellus', lastname: 'Guard', role: 'SysAdmin' });
  ({ token } = await apiLogin(portal.url, USER.username, USER.password));
  relay = await startBodyRelay(portal.url);
  session = await openSession(browser, relay.url);
  await signIn(session.page, USER);
});

tearDownSuite(() => ({ session, browser, portal, others: [workspace, relay && { remove: () => relay.close() }] }));

async function api(method: string, route: string, bearer: string, body?: unknown): Promise<unknown> {
  const answer = await fetch(`${portal.url}/api/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`${method} ${route} answered ${answer.status}: ${text}`);
  return JSON.parse(text) as unknown;
}

async function openUploadDialog(page: Page, projectId: number, name: string): Promise<Locator> {
  await page.goto(`/study/${projectId}`);
  await page.getByRole('heading', { name, level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Upload Files/Folder' }).click();
  const dialog = page.getByRole('dialog', { name: 'Upload Files' });
  await dialog.waitFor();
  return dialog;
}

/** Every way a planted value could travel: as written (Latin-1/UTF-8), and a name's parts alone. */
function leaks(body: Buffer): string[] {
  const needles = Object.values(PLANTED).flatMap((value) => [value, ...value.split('^')]).filter((n) => n.length >= 6);
  return needles.filter((needle) => body.includes(Buffer.from(needle, 'latin1')) || body.includes(Buffer.from(needle, 'utf16le')));
}

describe('de-identification in the browser', () => {
  test('a CD export with planted identity arrives without any of it ever sent, and the dialog says so', async () => {
    const { page } = session;
    const project = 'Trial 33 De-identified';
    const projectId = ((await api('POST', '/study-petitions', token, { name: project, valid: true, status: 'Pendant' })) as { data: Array<{ id: number }> }).data[0]?.id as number;
    const { token: adminToken } = await apiLogin(portal.url, ADMIN.username, ADMIN.password);
    await api('PUT', `/study-petitions/${projectId}/deidentification`, adminToken, { profile: 'basic', options: ['retainLongitudinalModifiedDates'] });

    // The planted files really carry the values the relay looks for.
    const planted = await readFile(path.join(cdDir, 'DICOM', 'ST000001', 'SE000001', 'IM000001'));
    expect(leaks(planted)).toEqual(expect.arrayContaining(['Plantedname', PLANTED.id, PLANTED.privateValue, 'Deeperplanted']));

    const dialog = await openUploadDialog(page, projectId, project);
    await expect.poll(() => dialog.getByTestId('deidentification-line').textContent()).toBe(LINE);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: '/tmp/i33-web-dialog-1280.png' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: '/tmp/i33-web-dialog-390.png' });
    await page.setViewportSize({ width: 1280, height: 800 });

    await dialog.getByLabel('Select Folder').setInputFiles(cdDir);
    await expect
      .poll(() => dialog.getByTestId('folder-info').textContent())
      .toBe(
        'Folder "PATIENTCD": 7 files in total, 6 DICOM files, 0 compressed files. Left out: PATIENTCD/README.TXT: not an archive or DICOM, ' +
          'PATIENTCD/DICOMDIR: a DICOMDIR, the index of a disc: it names the patient, so it is left out; the images it lists are sent on their own',
      );
    await uploadRow(dialog, 'IM000005').waitFor();
    await page.screenshot({ path: '/tmp/i33-web-dialog-folder-1280.png' });
    const before = relay.bodies.length;
    await dialog.getByRole('button', { name: 'Upload Files' }).click();

    // The folder becomes one row of the project once every image has arrived.
    await eventually(() => apiListFiles(portal.url, token, projectId), (files) => files.length === 1, 'the delivery to arrive', 60_000);
    const sent = relay.bodies.slice(before);
    const uploads = sent.filter((b) => b.url.startsWith('/api/v1/uploads'));
    // The five CT slices went (their pixel data, 2 KiB each, is kept byte for byte), and not one planted value with them.
    expect(uploads.reduce((sum, b) => sum + b.body.length, 0)).toBeGreaterThan(5 * 2048);
    // What went says how it was made: the engine's De-identification Method in every image.
    const method = Buffer.from('Basic Application Confidentiality Profile');
    const marked = uploads.reduce((count, b) => count + b.body.toString('latin1').split(method.toString('latin1')).length - 1, 0);
    // Twice in each: the method's text and the meaning of its code 113100.
    expect(marked).toBe(2 * CT_SERIES.length);
    const found = relay.bodies.flatMap((b) => leaks(b.body).map((needle) => `${b.method} ${b.url}: ${needle}`));
    const inHeaders = relay.bodies.flatMap((b) => leaks(Buffer.from(b.headers + b.url)).map((needle) => `${b.method} ${b.url} headers: ${needle}`));
    expect([...found, ...inHeaders]).toEqual([]);
    expect(session.pageErrors).toEqual([]);

    // Once processed, nothing planted is anywhere the server keeps things: the database (with its
    // journal), the stored objects, the work area, or its log.
    await eventually(
      () => apiListFiles(portal.url, token, projectId),
      (files) => files[0]?.processing.status === 'ready',
      'the delivery to be processed',
      60_000,
    );
    const stored = await Promise.all((await filesUnder(portal.dataDir)).map(async (file) => ({ file, bytes: await readFile(file) })));
    // The search reads what is there: the database, and every image wherever it is kept (an object of
    // its own, or the bundle it came in when the server recognised all of it as de-identified): each
    // one's pixel data, kept byte for byte, is among the bytes searched.
    for (const [i] of CT_SERIES.entries()) {
      const pixels = (await readFile(path.join(cdDir, 'DICOM', 'ST000001', 'SE000001', `IM${String(i + 1).padStart(6, '0')}`))).subarray(-256);
      expect(stored.some(({ bytes }) => bytes.includes(pixels)), `image ${i + 1} among the bytes searched`).toBe(true);
    }
    const kept: string[] = [];
    for (const { file, bytes } of stored) kept.push(...leaks(bytes).map((needle) => `${path.relative(portal.dataDir, file)}: ${needle}`));
    kept.push(...leaks(Buffer.from(portal.logs())).map((needle) => `server log: ${needle}`));
    expect(kept).toEqual([]);
  });
});

/** Every regular file under `dir`, at any depth. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}
