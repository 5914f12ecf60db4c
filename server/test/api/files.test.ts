import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROLES, type TRole } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { dicomFixture, download, expectNoLeftovers, listFiles, makeArchive, openUploadRequest, sha256, storedFiles, upload } from '../uploads.js';

const CT = dicomFixture('s01_CT_small.dcm');
const NO_PREAMBLE = dicomFixture('s23_RTSTRUCT_no_preamble_no_meta.dcm');
const ACCEPTED = 'Only these kinds of file are accepted: zip, rar, 7z, tar, gz, bz2, xz, lzma, dcm, dicom';

describe.each(dialects())('files API on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let other: CompanyRow;
  let scratch: string;
  const tokens = new Map<TRole, string>();
  const user = () => tokens.get(ROLES.User)!;

  beforeAll(async () => {
    server = await startTestServer(dialect, { MAX_UPLOAD_BYTES: String(2 * 1024 * 1024) });
    company = await makeCompany(server.services);
    other = await makeCompany(server.services);
    for (const role of [ROLES.User, ROLES.CompanyAdmin, ROLES.SysUser, ROLES.SysAdmin] as TRole[]) {
      const u = await makeUser(server.services, { company, role });
      tokens.set(role, await login(server.api, u.username, PASSWORD));
    }
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-archives-'));
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const project = (owner = company) => makeProject(server.services, owner);

  describe('upload', () => {
    it('stores a DICOM file, answers its row with sha256, and lists it', async () => {
      const p = await project();
      const answer = await upload(server.api, user(), { name: 'slice.dcm', data: CT }, p.id);
      expect(answer.status).toBe(201);
      const [file] = answer.body.data;
      expect(file).toMatchObject({
        file: 'slice.dcm',
        filesize: CT.length,
        studypetitionid: p.id,
        sha256: sha256(CT),
        kind: 'dicom',
        processing: { status: 'pending', error: null, summary: null },
      });
      const listed = await listFiles(server.api, user(), p.id);
      expect(listed.body.data.map((f: { id: number }) => f.id)).toEqual([file.id]);
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });

    it('stores a file sent before the project field as one sent after it (issue 31, item 3)', async () => {
      const p = await project();
      const answer = await upload(server.api, user(), { name: 'first.dcm', data: NO_PREAMBLE }, p.id, 'file-first');
      expect(answer).toMatchObject({ status: 201, body: { data: [{ file: 'first.dcm', kind: 'dicom', studypetitionid: p.id }] } });
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
      const second = await upload(server.api, user(), { name: 'second.dcm', data: NO_PREAMBLE }, p.id);
      expect(second.body.data[0]).toMatchObject({ kind: 'dicom', studypetitionid: p.id });
    });

    it('accepts every kind of the spec, named in any case, made by real tools', async () => {
      const p = await project();
      const members = { 'a.dcm': CT, 'b.dcm': NO_PREAMBLE };
      const cases: [string, string, string][] = [
        ['Series.ZIP', 'bsdtar --format zip -cf out.zip a.dcm b.dcm', 'out.zip'],
        ['series.7z', '7zz a -bso0 -bsp0 out.7z a.dcm b.dcm', 'out.7z'],
        ['series.tar', 'bsdtar -cf out.tar a.dcm b.dcm', 'out.tar'],
        ['series.tar.gz', 'bsdtar -czf out.tgz a.dcm b.dcm', 'out.tgz'],
        ['series.TGZ', 'bsdtar -czf out.tgz a.dcm b.dcm', 'out.tgz'],
        ['series.tar.bz2', 'bsdtar -cjf out.tbz a.dcm b.dcm', 'out.tbz'],
        ['series.tar.xz', 'bsdtar -cJf out.txz a.dcm b.dcm', 'out.txz'],
        ['slice.dcm.gz', 'gzip -c a.dcm > out.gz', 'out.gz'],
        ['slice.dcm.bz2', 'bzip2 -c a.dcm > out.bz2', 'out.bz2'],
        ['slice.dcm.xz', 'xz -c a.dcm > out.xz', 'out.xz'],
        ['slice.dcm.lzma', 'xz --format=lzma -c a.dcm > out.lzma', 'out.lzma'],
        ['slice.DICOM', 'cp a.dcm out.dicom', 'out.dicom'],
      ];
      for (const [name, command, output] of cases) {
        const data = makeArchive(scratch, members, command, output);
        const answer = await upload(server.api, user(), { name, data }, p.id);
        expect({ name, status: answer.status }).toEqual({ name, status: 201 });
        expect(answer.body.data[0].sha256).toBe(sha256(data));
      }
      const rar = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/rar/test_read_format_rar5_unicode.rar'));
      expect((await upload(server.api, user(), { name: 'fixture.RAR', data: rar }, p.id)).status).toBe(201);
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });

    it.each(['notes.txt', 'setup.exe', 'no-extension', 'archive.zip.exe', '.dcm'])(
      'judges %s by its content: refused with 415 naming the accepted kinds when it is not DICOM, storing nothing',
      async (name) => {
        const p = await project();
        const answer = await upload(server.api, user(), { name, data: Buffer.from('MZ\x90\x00 this is not DICOM') }, p.id);
        expect(answer.status).toBe(415);
        expect(answer.body.message).toContain(ACCEPTED);
        await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
      },
    );

    it.each(['notes.txt', 'no-extension', 'archive.zip.exe', '.dcm', 'IM000001', '1.2.840.113619.2.55.3.604688119'])(
      'accepts DICOM content named %s as DICOM',
      async (name) => {
        const p = await project();
        const answer = await upload(server.api, user(), { name, data: CT }, p.id);
        expect(answer.status).toBe(201);
        expect(answer.body.data[0]).toMatchObject({ file: name, kind: 'dicom', sha256: sha256(CT) });
      },
    );

    it('refuses content that contradicts its extension with a reason to act on', async () => {
      const p = await project();
      const gz = makeArchive(scratch, { 'a.dcm': CT }, 'gzip -c a.dcm > out.gz', 'out.gz');
      const answer = await upload(server.api, user(), { name: 'series.zip', data: gz }, p.id);
      expect(answer.status).toBe(415);
      expect(answer.body.message).toBe(
        'The file is named .zip but its content is a gzip stream; rename it to .gz or upload the original file.',
      );
      const text = await upload(server.api, user(), { name: 'slice.dcm', data: Buffer.from('just some text, not DICOM') }, p.id);
      expect(text.status).toBe(415);
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });

    it('refuses an empty file with 415', async () => {
      const p = await project();
      const answer = await upload(server.api, user(), { name: 'empty.dcm', data: Buffer.alloc(0) }, p.id);
      expect(answer).toMatchObject({ status: 415, body: { message: 'The file is empty' } });
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });

    it('keeps hostile and unicode names as data, never as paths', async () => {
      const p = await project();
      // What arrives is what a browser sends: the base name, with " escaped as %22 (HTML's multipart rules).
      const names: [sent: string, stored: string][] = [
        ['../../../../etc/passwd.dcm', 'passwd.dcm'],
        ['C:\\Windows\\evil.dcm', 'evil.dcm'],
        ['Überweisung 日本 ✓.dcm', 'Überweisung 日本 ✓.dcm'],
        ['a"; filename=evil.sh; .dcm', 'a%22; filename=evil.sh; .dcm'],
        ["it's.dcm", "it's.dcm"],
      ];
      for (const [sent, stored] of names) {
        const answer = await upload(server.api, user(), { name: sent, data: CT }, p.id);
        expect(answer.status).toBe(201);
        expect(answer.body.data[0].file).toBe(stored);
      }
      expect(storedFiles(server.config.dataDir).every((f) => /^uploads\/[0-9a-f-]{36}$/.test(f))).toBe(true);
      expect(fs.existsSync(path.join(server.config.dataDir, '..', 'etc'))).toBe(false);
    });

    it('refuses a name over 255 characters with 422 and keeps exactly 255', async () => {
      const p = await project();
      const long = `${'n'.repeat(252)}.dcm`;
      const answer = await upload(server.api, user(), { name: long, data: CT }, p.id);
      expect(answer).toMatchObject({ status: 422, body: { message: 'The file name must be at most 255 characters' } });
      expect((await upload(server.api, user(), { name: long.slice(1), data: CT }, p.id)).status).toBe(201);
    });

    it('answers 413 over the size limit and leaves no bytes behind', async () => {
      const p = await project();
      const big = Buffer.concat([CT, Buffer.alloc(2 * 1024 * 1024)]);
      const answer = await upload(server.api, user(), { name: 'big.dcm', data: big }, p.id);
      expect(answer.status).toBe(413);
      expect(answer.body.message).toContain('maximum upload size');
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });

    it('answers 400 for a missing file or project field, leaving nothing', async () => {
      const p = await project();
      const noProject = await upload(server.api, user(), { name: 'a.dcm', data: CT }, undefined);
      expect(noProject).toMatchObject({ status: 400, body: { message: 'studypetitionid and file are required' } });
      const form = new FormData();
      form.append('studypetitionid', String(p.id));
      const noFile = await fetch(`${server.api}/upload-study-petitions-files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user()}` },
        body: form,
      });
      expect(noFile.status).toBe(400);
      expect(await noFile.json()).toEqual({ message: 'file is required' });
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });

    it('answers 415 for a JSON body and 401 without a session', async () => {
      const p = await project();
      const json = await call(`${server.api}/upload-study-petitions-files`, { token: user(), json: { studypetitionid: p.id } });
      expect(json.status).toBe(415);
      const anonymous = await fetch(`${server.api}/upload-study-petitions-files`, { method: 'POST', body: new FormData() });
      expect(anonymous.status).toBe(401);
    });

    it('refuses oversized multipart part headers without harm', async () => {
      const p = await project();
      const boundary = 'XyZ';
      const body = [
        `--${boundary}\r\nContent-Disposition: form-data; name="studypetitionid"\r\n\r\n${p.id}\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.dcm"\r\nX-Padding: ${'p'.repeat(100_000)}\r\n\r\n`,
        'DICM',
        `\r\n--${boundary}--\r\n`,
      ].join('');
      const response = await fetch(`${server.api}/upload-study-petitions-files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user()}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body,
      });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
      expect((await call(`${server.api}/health`)).status).toBe(200);
    });

    it('lands 20 concurrent uploads, each with its own correct checksum', async () => {
      const p = await project();
      const payloads = Array.from({ length: 20 }, (_, i) => Buffer.concat([CT, Buffer.from(`#${i}`.repeat(1000 * (i + 1)))]));
      const answers = await Promise.all(payloads.map((data, i) => upload(server.api, user(), { name: `c${i}.dcm`, data }, p.id)));
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
      for (const [i, answer] of answers.entries()) {
        const file = answer.body.data[0];
        expect(file.sha256).toBe(sha256(payloads[i]!));
        const got = await download(server.api, user(), file.id);
        expect(sha256(got.bytes)).toBe(sha256(payloads[i]!));
      }
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });

    it('leaves nothing when the client disconnects mid-upload', async () => {
      const p = await project();
      const boundary = 'cut';
      await new Promise<void>((resolve) => {
        const req = openUploadRequest(server.api, user(), boundary, 1024 * 1024);
        req.on('error', () => resolve());
        req.write(`--${boundary}\r\nContent-Disposition: form-data; name="studypetitionid"\r\n\r\n${p.id}\r\n`);
        req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.dcm"\r\n\r\n`);
        req.write(CT);
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 300);
      });
      await new Promise((r) => setTimeout(r, 500));
      expect((await listFiles(server.api, user(), p.id)).body.data).toEqual([]);
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });
  });

  describe('download', () => {
    it('streams the bytes with length, type, ETag and a safely encoded attachment name', async () => {
      const p = await project();
      const name = "Überweisung 'final'; 日本 (1).dcm";
      const id = (await upload(server.api, user(), { name, data: CT }, p.id)).body.data[0].id;
      const got = await download(server.api, user(), id);
      expect(got.status).toBe(200);
      expect(sha256(got.bytes)).toBe(sha256(CT));
      expect(got.headers.get('content-length')).toBe(String(CT.length));
      expect(got.headers.get('content-type')).toBe('application/dicom');
      expect(got.headers.get('etag')).toBe(`"${sha256(CT)}"`);
      const disposition = got.headers.get('content-disposition')!;
      expect(disposition.startsWith('attachment;')).toBe(true);
      expect(disposition).toContain(`filename*=UTF-8''${encodeURIComponent(name).replace(/['()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`);
      expect(disposition).not.toMatch(/[\r\n]/);
    });

    it('serves single ranges (206), refuses unsatisfiable ones (416), and answers 304 to a matching ETag', async () => {
      const p = await project();
      const id = (await upload(server.api, user(), { name: 'r.dcm', data: CT }, p.id)).body.data[0].id;
      const part = await download(server.api, user(), id, { range: 'bytes=128-131' });
      expect(part.status).toBe(206);
      expect(part.bytes.toString()).toBe('DICM');
      expect(part.headers.get('content-range')).toBe(`bytes 128-131/${CT.length}`);
      const tail = await download(server.api, user(), id, { range: 'bytes=-10' });
      expect(tail.bytes.equals(CT.subarray(CT.length - 10))).toBe(true);
      const beyond = await download(server.api, user(), id, { range: `bytes=${CT.length + 5}-` });
      expect(beyond.status).toBe(416);
      expect(beyond.headers.get('content-range')).toBe(`bytes */${CT.length}`);
      const cached = await download(server.api, user(), id, { 'if-none-match': `"${sha256(CT)}"` });
      expect(cached.status).toBe(304);
    });
  });

  describe('isolation, roles and soft delete', () => {
    it("answers 404 for another company's project and file exactly as for missing ones", async () => {
      const theirs = await project(other);
      const admin = tokens.get(ROLES.SysAdmin)!;
      const fileId = (await upload(server.api, admin, { name: 'x.dcm', data: CT }, theirs.id)).body.data[0].id;
      const missingList = await listFiles(server.api, user(), 999999);
      expect(await listFiles(server.api, user(), theirs.id)).toMatchObject({ status: 404, body: missingList.body });
      const missing = await download(server.api, user(), 999999);
      const foreign = await download(server.api, user(), fileId);
      expect(foreign.status).toBe(404);
      expect(foreign.bytes.toString()).toBe(missing.bytes.toString());
      const del = await call(`${server.api}/study-petitions-files-delete/${fileId}`, { method: 'PUT', token: user() });
      expect(del.status).toBe(404);
      const into = await upload(server.api, user(), { name: 'y.dcm', data: CT }, theirs.id);
      expect(into.status).toBe(404);
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });

    it("lets a SysUser list and download any company's files but change nothing (403)", async () => {
      const theirs = await project(other);
      const admin = tokens.get(ROLES.SysAdmin)!;
      const sys = tokens.get(ROLES.SysUser)!;
      const fileId = (await upload(server.api, admin, { name: 'x.dcm', data: CT }, theirs.id)).body.data[0].id;
      expect((await listFiles(server.api, sys, theirs.id)).body.data).toHaveLength(1);
      expect((await download(server.api, sys, fileId)).status).toBe(200);
      expect((await call(`${server.api}/study-petitions-files-delete/${fileId}`, { method: 'PUT', token: sys })).status).toBe(403);
      expect((await upload(server.api, sys, { name: 'z.dcm', data: CT }, theirs.id, 'file-first')).status).toBe(403);
      expect((await upload(server.api, sys, { name: 'z.dcm', data: CT }, theirs.id)).status).toBe(403);
      await expectNoLeftovers(server.services.handle.db, server.config.dataDir);
    });

    it('soft-deletes a file: it vanishes from the list and downloads 404, its bytes kept', async () => {
      const p = await project();
      const id = (await upload(server.api, user(), { name: 'd.dcm', data: CT }, p.id)).body.data[0].id;
      const del = await call(`${server.api}/study-petitions-files-delete/${id}`, { method: 'PUT', token: user() });
      expect(del.status).toBe(200);
      expect(del.body.data[0].id).toBe(id);
      expect((await listFiles(server.api, user(), p.id)).body.data).toEqual([]);
      expect((await download(server.api, user(), id)).status).toBe(404);
      expect((await call(`${server.api}/study-petitions-files-delete/${id}`, { method: 'PUT', token: user() })).status).toBe(404);
    });

    it("makes a deleted project's files unreachable", async () => {
      const p = await project();
      const id = (await upload(server.api, user(), { name: 'e.dcm', data: CT }, p.id)).body.data[0].id;
      await call(`${server.api}/study-petitions-delete/${p.id}`, { method: 'PUT', token: user() });
      expect((await listFiles(server.api, user(), p.id)).status).toBe(404);
      expect((await download(server.api, user(), id)).status).toBe(404);
      expect((await upload(server.api, user(), { name: 'f.dcm', data: CT }, p.id)).status).toBe(404);
    });

    it('answers 404 for ids that cannot exist', async () => {
      expect((await call(`${server.api}/study-petitions-files?study_petition_id=abc`, { token: user() })).status).toBe(404);
      expect((await call(`${server.api}/study-petitions-files`, { token: user() })).status).toBe(404);
      expect((await download(server.api, user(), -1)).status).toBe(404);
    });
  });
});
