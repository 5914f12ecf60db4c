// Issue 12, items 2, 8, 9, 10 and 11: refused, stalled and malformed uploads, through a real
// listening server and real clients (Node's fetch and node:http), on SQLite and PostgreSQL.
import { parse as parseDisposition } from 'content-disposition';
import { ROLES, type TRole } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { NO_BOUNDARY_MESSAGE } from '../../src/uploads/multipart-upload.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { answerOf, dicomFixture, download, expectNoLeftovers, openUploadRequest, storedFiles, upload } from '../uploads.js';
import { testStorageBackend } from '../storage-registry.js';

const CT = dicomFixture('s01_CT_small.dcm');
const MB = 1024 * 1024;
const BOUNDARY = 'hardening-boundary';

const fieldPart = (projectId: number) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="studypetitionid"\r\n\r\n${projectId}\r\n`;
const filePart = (name: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/dicom\r\n\r\n`;

interface StreamedAnswer {
  status: number | undefined;
  body: string;
  /** Bytes of the body the client had written when the answer (or the end of the connection) came. */
  sent: number;
  closedWithoutAnswer: boolean;
}

/**
 * Sends `head`, then `fileBytes` bytes of file content (CT first, zeros after) in 64 KB chunks as
 * fast as the server takes them, then the closing boundary, with node:http. Stops writing as soon
 * as an answer arrives; resolves with the answer once it is read, or when the connection ends.
 */
function streamUpload(api: string, token: string, head: string, fileBytes: number): Promise<StreamedAnswer> {
  const tail = `\r\n--${BOUNDARY}--\r\n`;
  return new Promise((resolve) => {
    let sent = 0;
    let answered = false;
    let settled = false;
    const finish = (answer: StreamedAnswer) => {
      if (!settled) resolve(answer);
      settled = true;
    };
    const req = openUploadRequest(api, token, BOUNDARY, Buffer.byteLength(head) + fileBytes + tail.length);
    req.on('response', (res) => {
      answered = true;
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => finish({ status: res.statusCode, body, sent, closedWithoutAnswer: false }));
      res.on('error', () => finish({ status: res.statusCode, body, sent, closedWithoutAnswer: false }));
    });
    req.on('error', () => {
      if (!answered) finish({ status: undefined, body: '', sent, closedWithoutAnswer: true });
    });
    const file = Buffer.concat([CT, Buffer.alloc(64 * 1024)]).subarray(0, 64 * 1024);
    const zeros = Buffer.alloc(64 * 1024);
    req.write(head);
    const pump = () => {
      while (!answered && !req.destroyed && sent < fileBytes) {
        const chunk = (sent === 0 ? file : zeros).subarray(0, Math.min(64 * 1024, fileBytes - sent));
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered && !req.destroyed && sent >= fileBytes) req.end(tail);
    };
    pump();
  });
}

/** Files under DATA_DIR/objects, including the temp folder, with the objects that rows point to left out. */
async function unreferencedFiles(server: TestServer): Promise<string[]> {
  const rows = await server.services.handle.db.selectFrom('project_files').select('storage_key').execute();
  const keys = new Set(rows.map((r) => r.storage_key));
  return storedFiles(server.config.dataDir).filter((f) => !keys.has(f));
}

async function pendingCount(server: TestServer): Promise<number> {
  return (await server.services.handle.db.selectFrom('pending_uploads').selectAll().execute()).length;
}

describe.each(dialects())('upload hardening on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let other: CompanyRow;
  const tokens = new Map<TRole, string>();
  const user = () => tokens.get(ROLES.User)!;

  beforeAll(async () => {
    server = await startTestServer(dialect, { MAX_UPLOAD_BYTES: String(2 * MB), UPLOAD_IDLE_TIMEOUT_SECONDS: '2' });
    company = await makeCompany(server.services);
    other = await makeCompany(server.services);
    for (const role of [ROLES.User, ROLES.SysUser] as TRole[]) {
      const u = await makeUser(server.services, { company, role });
      tokens.set(role, await login(server.api, u.username, PASSWORD));
    }
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers 400 in words to a multipart body without a boundary (item 10)', async () => {
    const response = await fetch(`${server.api}/upload-study-petitions-files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user()}`, 'content-type': 'multipart/form-data' },
      body: `--x\r\nContent-Disposition: form-data; name="studypetitionid"\r\n\r\n1\r\n--x--\r\n`,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: NO_BOUNDARY_MESSAGE });
    await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
  });

  it('stores names without bidirectional or other invisible controls, and downloads them so (item 11)', async () => {
    const p = await makeProject(server.services, company);
    const names: [sent: string, stored: string][] = [
      ['report\u202Egpj.dcm', 'reportgpj.dcm'],
      ['\u200Fa\u200Eb\u202Ac\u202Bd\u202Ce\u202Df\u2066g\u2067h\u2068i\u2069j\u061C.dcm', 'abcdefghij.dcm'],
      ['zero\u200Bwidth\u2060joiner\uFEFF\u00AD.dcm', 'zerowidthjoiner.dcm'],
      ['c1\u0085\u009Bcontrols\u007F\u2028\u2029.dcm', 'c1controls.dcm'],
      ['tag\u{E0041}\u{E0042}chars.dcm', 'tagchars.dcm'],
      // Kept: Persian and emoji spellings need the joiners.
      ['\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645 \u{1F469}\u200D\u{1F4BB}.dcm', '\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645 \u{1F469}\u200D\u{1F4BB}.dcm'],
    ];
    for (const [sent, stored] of names) {
      const answer = await upload(server.api, user(), { name: sent, data: CT }, p.id);
      expect({ sent, status: answer.status, file: answer.body.data?.[0]?.file }).toEqual({ sent, status: 201, file: stored });
      const got = await download(server.api, user(), answer.body.data[0].id);
      expect(parseDisposition(got.headers.get('content-disposition')!).parameters.filename).toBe(stored);
    }
    // The extension is judged on what is shown: 'x<RLO>mcd.exe' looks like 'xexe.dcm' but is an .exe,
    // which promises nothing, so its content decides: text is refused.
    const disguised = await upload(server.api, user(), { name: 'x\u202Emcd.exe', data: Buffer.from('MZ not DICOM') }, p.id);
    expect(disguised.status).toBe(415);
  });

  describe('refusing before storing (item 8)', () => {
    const big = 400 * MB;

    it('answers a read-only SysUser 403 before a 400 MB body is read, writing nothing', async () => {
      const p = await makeProject(server.services, company);
      const before = await unreferencedFiles(server);
      const answer = await streamUpload(server.api, tokens.get(ROLES.SysUser)!, fieldPart(p.id) + filePart('big.dcm'), big);
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toEqual({ message: 'You do not have permission to perform this action' });
      expect(answer.sent).toBeLessThan(64 * MB);
      expect(await unreferencedFiles(server)).toEqual(before);
      expect(await pendingCount(server)).toBe(0);
    });

    it("answers 404 for another company's project before the body is read, writing nothing", async () => {
      const theirs = await makeProject(server.services, other);
      const answer = await streamUpload(server.api, user(), fieldPart(theirs.id) + filePart('big.dcm'), big);
      expect(answer.status).toBe(404);
      expect(answer.sent).toBeLessThan(64 * MB);
      expect(await unreferencedFiles(server)).toEqual([]);
      expect(await pendingCount(server)).toBe(0);
    });

    it('stops a file sent before its project field at MAX_UPLOAD_BYTES, keeping nothing (issue 31, item 3)', async () => {
      const p = await makeProject(server.services, company);
      const answer = await streamUpload(server.api, user(), filePart('first.dcm'), big);
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body).message).toContain('maximum upload size');
      expect(answer.sent).toBeLessThan(64 * MB);
      expect(await unreferencedFiles(server)).toEqual([]);
      expect(await pendingCount(server)).toBe(0);
      // The spec's order (field, then file, as the web app sends it) still works.
      expect((await upload(server.api, user(), { name: 'ok.dcm', data: CT }, p.id)).status).toBe(201);
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });
  });

  it('lets every early answer reach Node fetch on a keep-alive connection, for 300 KB and 50 MB bodies (item 9)', async () => {
    const p = await makeProject(server.services, company);
    const theirs = await makeProject(server.services, other);
    const send = async (token: string | undefined, name: string, size: number, projectId = p.id, content = CT) => {
      const form = new FormData();
      form.append('studypetitionid', String(projectId));
      form.append('file', new Blob([content, new Uint8Array(Math.max(0, size - content.length))]), name);
      const response = await fetch(`${server.api}/upload-study-petitions-files`, {
        method: 'POST',
        headers: token ? { authorization: `Bearer ${token}` } : {},
        body: form,
      });
      return { status: response.status, message: ((await response.json()) as { message: string }).message };
    };
    // A body that is not a form at all: refused by the content-type check before any handler runs.
    const sendOctets = async (size: number) => {
      const response = await fetch(`${server.api}/upload-study-petitions-files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user()}`, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(size),
      });
      return { status: response.status, message: ((await response.json()) as { message: string }).message };
    };
    for (const size of [300 * 1024, 50 * MB]) {
      for (let round = 0; round < 2; round += 1) {
        expect(await sendOctets(size)).toMatchObject({ status: 415 });
        expect(await send(undefined, 'a.dcm', 281 * 1024)).toEqual({ status: 401, message: 'Authentication required' });
        const text = Buffer.from('plain text, not DICOM');
        expect(await send(user(), 'a.dcm', size, p.id, text)).toMatchObject({ status: 415, message: expect.stringContaining('neither') });
        expect(await send(undefined, 'a.dcm', 281 * 1024)).toEqual({ status: 401, message: 'Authentication required' });
        // A name without an accepted extension is judged by its first bytes: text is refused.
        expect(await send(user(), 'notes.txt', size, p.id, text)).toMatchObject({ status: 415, message: expect.stringContaining('Only these kinds') });
        expect(await send(undefined, 'a.dcm', size)).toEqual({ status: 401, message: 'Authentication required' });
        expect(await send(tokens.get(ROLES.SysUser), 'a.dcm', size)).toMatchObject({ status: 403 });
        expect(await send(user(), 'a.dcm', size, theirs.id)).toMatchObject({ status: 404 });
        if (size > 2 * MB) {
          expect(await send(user(), 'a.dcm', size)).toMatchObject({ status: 413, message: expect.stringContaining('maximum upload size') });
        }
      }
    }
    await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
  });

  describe('stalled uploads (item 2)', () => {
    it('stops an upload that sends 8 KB and then nothing, removing its temp file and pending record', async () => {
      const p = await makeProject(server.services, company);
      const started = Date.now();
      let pendingWhileStalled = -1;
      let tempWhileStalled: string[] = [];
      const req = openUploadRequest(server.api, user(), BOUNDARY, 10 * MB);
      const answered = answerOf(req);
      req.write(fieldPart(p.id) + filePart('stalled.dcm'));
      req.write(Buffer.concat([CT, Buffer.alloc(8 * 1024)]).subarray(0, 8 * 1024));
      setTimeout(() => {
        void (async () => {
          pendingWhileStalled = await pendingCount(server);
          tempWhileStalled = await unreferencedFiles(server);
        })();
      }, 700);
      const answer = await answered;
      const elapsed = Date.now() - started;
      // The check during the stall proves the upload was really in flight.
      expect(pendingWhileStalled).toBe(1);
      // S3 keeps a part in memory until it holds 8 MiB: 8 KB have reached no bucket yet.
      expect(tempWhileStalled).toHaveLength(testStorageBackend() === 's3' ? 0 : 1);
      expect(elapsed).toBeGreaterThanOrEqual(1900);
      expect(elapsed).toBeLessThan(10_000);
      expect(answer.status).toBe(408);
      expect(JSON.parse(answer.body).message).toBe(
        'No data arrived for 2 seconds, so the upload was stopped and nothing was kept; check the connection and upload the file again',
      );
      await new Promise((r) => setTimeout(r, 200));
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });

    it('closes an upload that stalls before its file part, leaving nothing', async () => {
      const p = await makeProject(server.services, company);
      const started = Date.now();
      await new Promise<void>((resolve) => {
        const req = openUploadRequest(server.api, user(), BOUNDARY, MB);
        req.on('response', (res) => res.resume().on('end', resolve).on('error', resolve));
        req.on('error', () => resolve());
        req.on('close', () => resolve());
        req.write(fieldPart(p.id).slice(0, 40));
      });
      expect(Date.now() - started).toBeLessThan(10_000);
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });

    it('never cuts a body that keeps flowing slowly, even past the idle timeout', async () => {
      const p = await makeProject(server.services, company);
      const data = Buffer.concat([CT, Buffer.alloc(8 * 1024)]);
      const head = fieldPart(p.id) + filePart('slow.dcm');
      const tail = `\r\n--${BOUNDARY}--\r\n`;
      const status = await new Promise<number | undefined>((resolve) => {
        const req = openUploadRequest(server.api, user(), BOUNDARY, Buffer.byteLength(head) + data.length + tail.length);
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode);
        });
        req.on('error', () => resolve(undefined));
        req.write(head);
        // 8 slices 700 ms apart: 5.6 s in all, well past the 2 s idle timeout.
        const slices = 8;
        const size = Math.ceil(data.length / slices);
        let i = 0;
        const next = () => {
          req.write(data.subarray(i * size, (i + 1) * size));
          i += 1;
          if (i < slices) setTimeout(next, 700);
          else req.end(tail);
        };
        next();
      });
      expect(status).toBe(201);
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });
  });
});

