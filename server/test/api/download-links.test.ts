// Download links (docs/api.md, 'Download links'): short-lived, single-use URLs that the browser's
// own download manager fetches without a session, and resumes with Range on the same ticket.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROLES, type TRole } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { createTestDatabase, dialects, type TestDatabase } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startServerProcess } from '../processes.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, encodeMetadata } from '../tus.js';
import { dicomFixture, listFiles, sha256, upload } from '../uploads.js';

const CT = dicomFixture('s01_CT_small.dcm');
const TICKET_URL = /^\/api\/v1\/dl\/[A-Za-z0-9_-]{43}$/;
const INVALID = 'This download link is not valid. Start the download again from the portal.';
const EXPIRED = 'This download link has expired. Start the download again from the portal.';
const SPENT = 'This download link has already been used. Start the download again from the portal.';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0';

describe.each(dialects())('download links on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let scratch: string;
  let now = Date.now();
  const tokens = new Map<TRole, string>();
  let stranger: string;
  let foreignSysUser: string;
  const user = () => tokens.get(ROLES.User)!;

  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { jobs: true, clock: () => now });
    company = await makeCompany(server.services);
    for (const role of [ROLES.User, ROLES.CompanyAdmin, ROLES.SysUser, ROLES.SysAdmin] as TRole[]) {
      const u = await makeUser(server.services, { company, role });
      tokens.set(role, await login(server.api, u.username, PASSWORD));
    }
    const elsewhere = await makeCompany(server.services);
    stranger = await login(server.api, (await makeUser(server.services, { company: elsewhere })).username, PASSWORD);
    foreignSysUser = await login(server.api, (await makeUser(server.services, { company: elsewhere, role: ROLES.SysUser })).username, PASSWORD);
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-links-'));
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  async function uploaded(name = 'slice.dcm', data: Buffer = CT): Promise<{ id: number; projectId: number }> {
    const p = await makeProject(server.services, company);
    const answer = await upload(server.api, user(), { name, data }, p.id);
    expect(answer.status).toBe(201);
    return { id: answer.body.data[0].id, projectId: p.id };
  }

  const createLink = (token: string | undefined, body: unknown) =>
    call(`${server.api}/download-links`, { method: 'POST', ...(token ? { token } : {}), json: body });

  async function linkTo(body: { file_id: number; entry_id?: number }, token = user()): Promise<string> {
    const answer = await createLink(token, body);
    expect(answer.status).toBe(201);
    return `${server.url}${answer.body.data[0].url}`;
  }

  /** A GET as a browser's download manager sends it: no Authorization, its own User-Agent. */
  const fetchLink = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers: { 'user-agent': BROWSER, ...headers } });
  const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer());

  it('answers a URL with a ticket that downloads the file once without a session, as an attachment', async () => {
    const file = await uploaded('Brain scan ü.dcm');
    const answer = await createLink(user(), { file_id: file.id });
    expect(answer.status).toBe(201);
    const [link] = answer.body.data;
    expect(link.url).toMatch(TICKET_URL);
    expect(Date.parse(link.expires_at) - now).toBe(60_000);

    const response = await fetchLink(`${server.url}${link.url}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="Brain scan u.dcm"; filename*=UTF-8''Brain%20scan%20%C3%BC.dcm`);
    expect(response.headers.get('etag')).toBe(`"${sha256(CT)}"`);
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(sha256(await bytesOf(response))).toBe(sha256(CT));

    // Used once: the same URL, asked again for the whole file, is refused in words.
    const again = await fetchLink(`${server.url}${link.url}`);
    expect(again.status).toBe(410);
    expect(await again.json()).toEqual({ message: SPENT });
    // The database holds the ticket's hash, never the ticket.
    const ticket = link.url.split('/').pop();
    const rows = await server.services.handle.db.selectFrom('download_links').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(ticket);
  });

  it('is authorised like the download: every role of the company and the Sys roles; another company 404; no session 401', async () => {
    const file = await uploaded();
    for (const [role, token] of tokens) {
      const answer = await createLink(token, { file_id: file.id });
      expect(answer.status, `role ${role}`).toBe(201);
    }
    // SysUser is read-only but may download, in any company.
    expect((await createLink(foreignSysUser, { file_id: file.id })).status).toBe(201);
    expect(await createLink(stranger, { file_id: file.id })).toMatchObject({ status: 404, body: { message: 'File not found' } });
    expect(await createLink(user(), { file_id: 999_999 })).toMatchObject({ status: 404, body: { message: 'File not found' } });
    expect(await createLink(undefined, { file_id: file.id })).toMatchObject({ status: 401 });
    expect(await createLink(user(), { file_id: 'one' })).toMatchObject({ status: 400 });
    expect(await createLink(user(), { file_id: file.id, extra: 1 })).toMatchObject({ status: 400 });
    expect(await createLink(user(), { file_id: file.id, entry_id: 999_999 })).toMatchObject({ status: 404, body: { message: 'Entry not found' } });
    // A deleted file has no links.
    expect((await call(`${server.api}/study-petitions-files-delete/${file.id}`, { method: 'PUT', token: user() })).status).toBe(200);
    expect(await createLink(user(), { file_id: file.id })).toMatchObject({ status: 404, body: { message: 'File not found' } });
  });

  it('refuses an unknown or malformed ticket with 404, and a HEAD does not spend a ticket', async () => {
    for (const ticket of ['x'.repeat(43), 'short', 'A'.repeat(44)]) {
      const response = await fetchLink(`${server.api}/dl/${ticket}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ message: INVALID });
    }
    const url = await linkTo({ file_id: (await uploaded()).id });
    expect((await fetch(url, { method: 'HEAD' })).status).toBeGreaterThanOrEqual(400);
    expect((await fetchLink(url)).status).toBe(200);
  });

  it('must be started within its lifetime, and expired links are swept', async () => {
    const url = await linkTo({ file_id: (await uploaded()).id });
    now += 61_000;
    const late = await fetchLink(url);
    expect(late.status).toBe(410);
    expect(await late.json()).toEqual({ message: EXPIRED });
    expect(await server.services.downloadLinks.sweep()).toBeGreaterThanOrEqual(1);
    expect((await fetchLink(url)).status).toBe(404);
  });

  it('resumes on the same ticket: its first client continues with Range and If-Range, within the resume window only', async () => {
    const file = await uploaded();
    const etag = `"${sha256(CT)}"`;
    const url = await linkTo({ file_id: file.id });
    // The first request spends the ticket; the download breaks after 1000 bytes.
    const first = await fetchLink(url, { range: 'bytes=0-999' });
    expect(first.status).toBe(206);
    const head = await bytesOf(first);

    const rest = await fetchLink(url, { range: 'bytes=1000-', 'if-range': etag });
    expect(rest.status).toBe(206);
    expect(rest.headers.get('content-range')).toBe(`bytes 1000-${CT.length - 1}/${CT.length}`);
    expect(Buffer.concat([head, await bytesOf(rest)]).equals(CT)).toBe(true);
    // And again (a second pause), later in the window.
    now += 23 * 3_600_000;
    expect((await fetchLink(url, { range: 'bytes=2000-', 'if-range': etag })).status).toBe(206);

    // Anything else is a second download, refused: the whole file, from byte 0, without If-Range,
    // with another ETag, or from another client.
    const secondDownloads: Record<string, string>[] = [
      {},
      { range: 'bytes=0-', 'if-range': etag },
      { range: 'bytes=1000-' },
      { range: 'bytes=1000-', 'if-range': '"0000"' },
      { range: 'bytes=1000-', 'if-range': etag, 'user-agent': 'curl/8.5.0' },
    ];
    for (const headers of secondDownloads) {
      const refused = await fetchLink(url, headers);
      expect(refused.status, JSON.stringify(headers)).toBe(410);
      expect(await refused.json()).toEqual({ message: SPENT });
    }
    now += 2 * 3_600_000;
    expect((await fetchLink(url, { range: 'bytes=1000-', 'if-range': etag })).status).toBe(410);
  });

  it('stops working when its file is deleted', async () => {
    const file = await uploaded();
    const unused = await linkTo({ file_id: file.id });
    const started = await linkTo({ file_id: file.id });
    const first = await fetchLink(started, { range: 'bytes=0-9' });
    expect(first.status).toBe(206);
    await first.arrayBuffer();
    expect((await call(`${server.api}/study-petitions-files-delete/${file.id}`, { method: 'PUT', token: user() })).status).toBe(200);
    expect(await server.services.handle.db.selectFrom('download_links').selectAll().where('file_id', '=', file.id).execute()).toEqual([]);
    expect((await fetchLink(unused)).status).toBe(404);
    expect((await fetchLink(started, { range: 'bytes=10-', 'if-range': `"${sha256(CT)}"` })).status).toBe(404);
  });

  it('stops working when its project is deleted', async () => {
    const file = await uploaded();
    const url = await linkTo({ file_id: file.id });
    expect((await call(`${server.api}/study-petitions-delete/${file.projectId}`, { method: 'PUT', token: tokens.get(ROLES.CompanyAdmin)! })).status).toBe(200);
    const refused = await fetchLink(url);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({ message: INVALID });
  });

  it('stops working when its creator loses access to the company', async () => {
    const file = await uploaded();
    const leaver = await makeUser(server.services, { company });
    const url = await linkTo({ file_id: file.id }, await login(server.api, leaver.username, PASSWORD));
    await server.services.handle.db.updateTable('users').set({ disabled: 1 }).where('id', '=', leaver.id).execute();
    const refused = await fetchLink(url);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({ message: INVALID });
  });

  it('downloads one entry of a file’s contents, resumable like a file', async () => {
    const file = await uploaded('ct.dcm');
    let entryId: number | undefined;
    for (let i = 0; i < 600 && entryId === undefined; i += 1) {
      const contents = await call(`${server.api}/study-petitions-files/${file.id}/contents`, { token: user() });
      entryId = contents.body.data?.entries?.[0]?.id;
      if (entryId === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    expect(entryId).toBeDefined();
    expect(await createLink(stranger, { file_id: file.id, entry_id: entryId })).toMatchObject({ status: 404 });
    const url = await linkTo({ file_id: file.id, entry_id: entryId! });
    const first = await fetchLink(url, { range: 'bytes=0-99' });
    expect(first.status).toBe(206);
    expect(first.headers.get('content-type')).toBe('application/dicom');
    expect(first.headers.get('content-disposition')).toMatch(/^attachment; filename="?ct\.dcm"?$/);
    const rest = await fetchLink(url, { range: 'bytes=100-', 'if-range': `"${sha256(CT)}"` });
    expect(rest.status).toBe(206);
    expect(Buffer.concat([await bytesOf(first), await bytesOf(rest)]).equals(CT)).toBe(true);
  });

  it('downloads a folder row as its zip exactly once (no Range to resume)', async () => {
    const p = await makeProject(server.services, company);
    const created = await call(`${server.api}/deliveries`, { method: 'POST', token: user(), json: { studypetitionid: p.id, name: 'CD' } });
    const delivery = created.body.data[0].id as number;
    const meta = encodeMetadata({ filename: 'IM1', delivery: String(delivery), relativePath: 'DICOM/IM1' });
    expect((await createUpload(server.api, user(), { size: CT.length, body: CT, metadata: meta })).status).toBe(201);
    const completed = await call(`${server.api}/deliveries/${delivery}/complete`, { method: 'POST', token: user() });
    const fileId = completed.body.data[0].file_id as number;
    const url = await linkTo({ file_id: fileId });

    const zip = await fetchLink(url);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    expect(zip.headers.get('content-disposition')).toMatch(/^attachment; filename="?CD\.zip"?$/);
    fs.writeFileSync(path.join(scratch, 'cd.zip'), await bytesOf(zip));
    const unpacked = execFileSync('bsdtar', ['-xOf', path.join(scratch, 'cd.zip'), 'DICOM/IM1']);
    expect(unpacked.equals(CT)).toBe(true);
    const again = await fetchLink(url, { range: 'bytes=100-' });
    expect(again.status).toBe(410);
    expect((await listFiles(server.api, user(), p.id)).body.data.map((f: { kind: string }) => f.kind)).toEqual(['folder']);
  });

  it('tells the web app the largest download it reads itself', async () => {
    const answer = await call(`${server.api}/download-links/settings`, { token: user() });
    expect(answer).toMatchObject({ status: 200, body: { data: [{ in_page_max_bytes: 256 * 1024 * 1024 }] } });
    expect((await call(`${server.api}/download-links/settings`)).status).toBe(401);
  });
});

describe.each(dialects())('download link tickets and the log on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrated: true });
  });
  afterAll(() => database.drop());

  it('logs the requests to a link with the ticket cut out of the URL', async () => {
    const admin = { ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'Pr1vate!Data-pw' };
    const server = await startServerProcess({
      DATA_DIR: database.dataDir,
      ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : {}),
      LOG_FORMAT: 'json',
      ...admin,
    });
    try {
      const api = `${server.url}/api/v1`;
      const token = await login(api, admin.ADMIN_USERNAME, admin.ADMIN_PASSWORD);
      const project = (await call(`${api}/study-petitions`, { token, json: { name: 'Logs', valid: true, status: 'Pendant' } })).body.data[0];
      const file = (await upload(api, token, { name: 'slice.dcm', data: CT }, project.id)).body.data[0];
      const link = (await call(`${api}/download-links`, { token, json: { file_id: file.id } })).body.data[0];
      const ticket = link.url.split('/').pop() as string;
      const first = await fetch(`${server.url}${link.url}`);
      expect(first.status).toBe(200);
      await first.arrayBuffer();
      expect((await fetch(`${server.url}${link.url}?again=1`)).status).toBe(410);

      const loggedLinks = () =>
        server
          .logs()
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => (JSON.parse(line) as { req?: { url: string } }).req?.url ?? '')
          .filter((url) => url.startsWith('/api/v1/dl/'));
      // The child's output arrives on its own schedule: wait for both requests' lines.
      for (let waited = 0; loggedLinks().length < 2 && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      expect(loggedLinks()).toEqual([
        '/api/v1/dl/[redacted]',
        '/api/v1/dl/[redacted]?again=1',
      ]);
      expect(server.logs()).not.toContain(ticket);
    } finally {
      server.child.kill('SIGTERM');
      await server.waitForExit();
    }
  });
});
