// Issue 31, items 2 and 3: multipart bodies that are broken, and the file sent before its project
// field, through a real listening server and real clients (Node's fetch and node:http), on SQLite
// and PostgreSQL.
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { MALFORMED_BODY_MESSAGE } from '../../src/uploads/multipart-upload.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { answerOf, dicomFixture, download, expectNoLeftovers, listFiles, openUploadRequest, sha256, upload } from '../uploads.js';

const CT = dicomFixture('s01_CT_small.dcm');
const MB = 1024 * 1024;
const B = 'XB';

const fieldPart = (value: string | number, boundary = B) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="studypetitionid"\r\n\r\n${value}\r\n`;
const fileHead = (name: string, boundary = B) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/dicom\r\n\r\n`;
const end = (boundary = B) => `--${boundary}--\r\n`;

/** Sends `body` whole as the upload call's body, marked as a form with boundary XB. */
async function sendRaw(api: string, token: string, body: string | Buffer): Promise<{ status: number; message: string }> {
  const response = await fetch(`${api}/upload-study-petitions-files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${B}` },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  const text = await response.text();
  return { status: response.status, message: (JSON.parse(text) as { message: string }).message };
}

describe.each(dialects())('multipart bodies on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let other: CompanyRow;
  let user: string;
  let sysUser: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { MAX_UPLOAD_BYTES: String(4 * MB), UPLOAD_IDLE_TIMEOUT_SECONDS: '2' });
    company = await makeCompany(server.services);
    other = await makeCompany(server.services);
    user = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    sysUser = await login(server.api, (await makeUser(server.services, { company, role: ROLES.SysUser })).username, PASSWORD);
  });
  afterAll(async () => {
    await server.close();
  });

  describe('malformed bodies (item 2)', () => {
    const dicom = CT.toString('latin1');
    const bodies: [what: string, body: (projectId: number) => string][] = [
      ['not multipart', () => 'garbage'],
      ['an opening boundary alone', () => `--${B}\r\n`],
      ['a field without its closing boundary', (id) => fieldPart(id).slice(0, -2)],
      ['a field and then nothing', (id) => fieldPart(id)],
      ['part headers with no end', () => `--${B}\r\n` + 'Content-Disposition: form-data; name="studypetitionid"\r\n'.repeat(5000)],
      ['a boundary other than the header\u2019s', (id) => fieldPart(id, 'YB') + fileHead('a.dcm', 'YB') + dicom + `\r\n${end('YB')}`],
      ['a file cut short', (id) => fieldPart(id) + fileHead('a.dcm') + dicom.slice(0, 2000)],
      ['a file first, cut short', () => fileHead('a.dcm') + dicom.slice(0, 2000)],
      ['a file first and no field', () => fileHead('a.dcm') + dicom + `\r\n${end()}`],
      ['a file first, then a field cut short', (id) => fileHead('a.dcm') + dicom + '\r\n' + fieldPart(id).slice(0, -4)],
    ];

    it.each(bodies)('answers 400 in words to %s, keeping nothing', async (_what, body) => {
      const p = await makeProject(server.services, company);
      const answer = await sendRaw(server.api, user, Buffer.from(body(p.id), 'latin1'));
      expect(answer.status).toBe(400);
      expect(answer.message).not.toMatch(/multipart data|terminated early|Internal|could not be processed/);
      expect((await listFiles(server.api, user, p.id)).body.data).toEqual([]);
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });

    it('names a body the parser cannot read as such', async () => {
      expect(await sendRaw(server.api, user, 'garbage')).toEqual({ status: 400, message: MALFORMED_BODY_MESSAGE });
      expect(await sendRaw(server.api, user, `--${B}\r\n`)).toEqual({ status: 400, message: MALFORMED_BODY_MESSAGE });
    });
  });

  describe('the file before studypetitionid (item 3)', () => {
    it('stores a file sent first, as the browser form sends it, with the same checks as the field first', async () => {
      const p = await makeProject(server.services, company);
      const fileFirst = await upload(server.api, user, { name: 'first.dcm', data: CT }, p.id, 'file-first');
      expect(fileFirst.status).toBe(201);
      expect(fileFirst.body.data[0]).toMatchObject({ file: 'first.dcm', studypetitionid: p.id, filesize: CT.length, sha256: sha256(CT) });
      expect((await download(server.api, user, fileFirst.body.data[0].id)).bytes.equals(CT)).toBe(true);
      // Above the in-memory size: streamed to storage, still committed once the project is known.
      const big = Buffer.concat([CT, Buffer.alloc(2 * MB)]);
      const streamed = await upload(server.api, user, { name: 'big.dcm', data: big }, p.id, 'file-first');
      expect(streamed.status).toBe(201);
      expect(streamed.body.data[0]).toMatchObject({ filesize: big.length, sha256: sha256(big) });
      // The content check: text named .dcm is refused either way.
      const text = await upload(server.api, user, { name: 'x.dcm', data: Buffer.from('plain text') }, p.id, 'file-first');
      expect(text.status).toBe(415);
      // The audit trail records it as any other multipart upload.
      const events = await server.services.handle.db.selectFrom('audit_log').select('details').where('action', '=', 'upload.completed').execute();
      const recorded = events.map((e) => JSON.parse(e.details!) as { name: string; via: string; project_id: number }).filter((d) => d.project_id === p.id);
      expect(recorded.map((d) => `${d.name} ${d.via}`).sort()).toEqual(['big.dcm multipart', 'first.dcm multipart']);
      expect((await listFiles(server.api, user, p.id)).body.data.map((f: { file: string }) => f.file).sort()).toEqual(['big.dcm', 'first.dcm']);
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });

    it('answers 404 or 403 as with the field first when the project turns out unknown, foreign or deleted, keeping nothing', async () => {
      const theirs = await makeProject(server.services, other);
      const gone = await makeProject(server.services, company);
      await server.services.repos.projects.softDelete(gone.id);
      for (const data of [CT, Buffer.concat([CT, Buffer.alloc(2 * MB)])]) {
        for (const projectId of [theirs.id, gone.id, 999_999]) {
          const first = await upload(server.api, user, { name: 'a.dcm', data }, projectId, 'file-first');
          const second = await upload(server.api, user, { name: 'a.dcm', data }, projectId, 'field-first');
          expect({ projectId, status: first.status, body: first.body }).toEqual({ projectId, status: second.status, body: second.body });
          expect(first.status).toBe(404);
        }
      }
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });

    it('refuses a SysUser before any byte of a file sent first', async () => {
      const req = openUploadRequest(server.api, sysUser, B, 400 * MB);
      const answered = answerOf(req);
      // The parser holds back a header's last line break until the next byte shows it ends the part's headers.
      req.write(fileHead('big.dcm') + 'D');
      const answer = await answered;
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toEqual({ message: 'You do not have permission to perform this action' });
      req.destroy();
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });
  });
});
