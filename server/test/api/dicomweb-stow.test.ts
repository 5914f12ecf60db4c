// STOW-RS (PS3.18 §10.5): DICOM files of the shared corpus (copies in test/fixtures/dicom, see its
// LICENSES) sent in one multipart/related request built here become one folder row that is
// processed like any delivery; the answer lists what was stored and why anything was refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROLES } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { basicProject, plantIdentity } from '../deidentification-fixtures.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { dicomFixture, download, listFiles, sha256, waitProcessed, zipFileHashes } from '../uploads.js';

const FIXTURES = ['s01_CT_small.dcm', 's03_CT_series5N_2062.dcm', 's10_MR_small_implicit.dcm'];
const BOUNDARY = 'stow-test-boundary-1234';
const PLANTED = { name: 'PLANTED^STOWNAME', id: 'STOWPLANTID77', nestedId: 'STOWNESTED88', privateCreator: 'STOWCREATOR', privateValue: 'STOWPRIVATE99' };

/** A multipart/related body of `parts`, each application/dicom. */
function multipart(parts: Buffer[], boundary = BOUNDARY): Buffer {
  const chunks: Buffer[] = [Buffer.from('preamble to ignore\r\n')];
  for (const part of parts) chunks.push(Buffer.from(`--${boundary}\r\nContent-Type: application/dicom\r\n\r\n`), part, Buffer.from('\r\n'));
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const seq = (answer: Record<string, { Value?: unknown[] }>, tag: string) => (answer[tag]?.Value ?? []) as Record<string, { Value?: unknown[] }>[];
const str = (item: Record<string, { Value?: unknown[] }>, tag: string) => item[tag]?.Value?.[0];

describe.each(dialects())('DICOMweb STOW-RS, %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  let admin: string;
  let readOnly: string;
  let stranger: string;
  let scratch: string;

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-stow-'));
    server = await startTestServer(dialect, {}, { jobs: true });
    company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    admin = await login(server.api, (await makeUser(server.services, { role: ROLES.SysAdmin })).username, PASSWORD);
    readOnly = await login(server.api, (await makeUser(server.services, { company, role: ROLES.SysUser })).username, PASSWORD);
    stranger = await login(server.api, (await makeUser(server.services)).username, PASSWORD);
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const stow = (projectId: number, body: Buffer, opts: { token?: string | undefined; type?: string; study?: string } = {}, who = 'token' in opts ? opts.token : token) =>
    fetch(`${server.api}/study-petitions/${projectId}/dicomweb/studies${opts.study ? `/${opts.study}` : ''}`, {
      method: 'POST',
      headers: { ...(who === undefined ? {} : { authorization: `Bearer ${who}` }), 'content-type': opts.type ?? `multipart/related; type="application/dicom"; boundary=${BOUNDARY}` },
      body,
    }).then(async (r) => ({ status: r.status, type: r.headers.get('content-type'), text: await r.text() }));

  it('stores every part as one folder row named DICOMweb …, answers each SOP, and keeps the bytes unchanged', async () => {
    const project = await makeProject(server.services, company);
    const sent = FIXTURES.map(dicomFixture);
    const answer = await stow(project.id, multipart(sent));
    expect(answer.status).toBe(200);
    expect(answer.type).toContain('application/dicom+json');
    const json = JSON.parse(answer.text);
    const referenced = seq(json, '00081199');
    expect(referenced).toHaveLength(3);
    expect(json['00081198']).toBeUndefined();
    for (const item of referenced) {
      expect(str(item, '00081150')).toMatch(/^1\.2\.840\.10008\./);
      expect(str(item, '00081190')).toMatch(new RegExp(`^${server.api}/study-petitions/${project.id}/dicomweb/studies/[0-9.]+/series/[0-9.]+/instances/${String(str(item, '00081155')).replace(/\./g, '\\.')}$`));
    }
    const rows = (await listFiles(server.api, token, project.id)).body.data as { id: number; file: string; kind: string }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: 'folder', file: expect.stringMatching(/^DICOMweb \d{4}-\d\d-\d\d \d\d:\d\d$/) });
    expect((await waitProcessed(server.api, token, project.id, rows[0]!.id)).processing.status).toBe('ready');
    const zip = await download(server.api, token, rows[0]!.id);
    fs.writeFileSync(path.join(scratch, 'stow.zip'), zip.bytes);
    const hashes = zipFileHashes(path.join(scratch, 'stow.zip'), scratch);
    expect(Object.values(hashes).sort()).toEqual(sent.map(sha256).sort());
    expect(Object.keys(hashes).sort()).toEqual(referenced.map((i) => `${String(str(i, '00081155'))}.dcm`).sort());
  });

  it('refuses a part that is not DICOM with its reason and keeps the others (202); all bad 409', async () => {
    const project = await makeProject(server.services, company);
    const some = await stow(project.id, multipart([dicomFixture(FIXTURES[0]!), Buffer.from('just some text, not DICOM'), dicomFixture(FIXTURES[1]!)]));
    expect(some.status).toBe(202);
    const json = JSON.parse(some.text);
    expect(seq(json, '00081199')).toHaveLength(2);
    const failed = seq(json, '00081198');
    expect(failed).toHaveLength(1);
    expect(str(failed[0]!, '00081197')).toBe(0xc000);
    expect(str(failed[0]!, '0040A160')).toMatch(/Part 2 .*not a DICOM file/);

    const none = await stow(project.id, multipart([Buffer.from('nope'), Buffer.from('also not')]));
    expect(none.status).toBe(409);
    expect(seq(JSON.parse(none.text), '00081198')).toHaveLength(2);
    // The refused request left no row: the one of the first request only.
    expect((await listFiles(server.api, token, project.id)).body.data).toHaveLength(1);
  });

  it('refuses a part of another study when the request names one', async () => {
    const project = await makeProject(server.services, company);
    const answer = await stow(project.id, multipart([dicomFixture(FIXTURES[0]!)]), { study: '1.2.3.4' });
    expect(answer.status).toBe(409);
    expect(str(seq(JSON.parse(answer.text), '00081198')[0]!, '0040A160')).toMatch(/another study/);
  });

  it('answers 415 in words for another type and 400 for a malformed body', async () => {
    const project = await makeProject(server.services, company);
    const wrong = await stow(project.id, dicomFixture(FIXTURES[0]!), { type: 'application/dicom' });
    expect(wrong.status).toBe(415);
    expect(JSON.parse(wrong.text).message).toMatch(/multipart\/related/);
    const malformed = await stow(project.id, Buffer.from('no boundary anywhere'));
    expect(malformed.status).toBe(400);
    // A quoted boundary is read too.
    const quoted = await stow(project.id, multipart([dicomFixture(FIXTURES[0]!)]), { type: `multipart/related; type="application/dicom"; boundary="${BOUNDARY}"` });
    expect(quoted.status).toBe(200);
  });

  it('answers with the UIDs the de-identifying project stores, and nothing planted', async () => {
    const { id: projectId } = await basicProject(server, company, { admin, user: token });
    const planted = plantIdentity(scratch, FIXTURES[0]!, PLANTED);
    const answer = await stow(projectId, multipart([planted]));
    expect(answer.status).toBe(200);
    for (const value of Object.values(PLANTED)) expect(answer.text).not.toContain(value);
    const item = seq(JSON.parse(answer.text), '00081199')[0]!;
    expect(str(item, '00081155')).toMatch(/^2\.25\./);
    const rows = (await listFiles(server.api, token, projectId)).body.data as { id: number }[];
    expect((await waitProcessed(server.api, token, projectId, rows[0]!.id)).processing.status).toBe('ready');
    const contents = await call(`${server.api}/study-petitions-files/${rows[0]!.id}/contents?limit=100`, { token });
    const entries = contents.body.data.entries as { dicom: { sop_instance_uid: string; study_instance_uid: string } | null }[];
    expect(entries.map((e) => e.dicom?.sop_instance_uid)).toEqual([str(item, '00081155')]);
    expect(String(str(item, '00081190'))).toContain(`/studies/${entries[0]!.dicom!.study_instance_uid}/`);

    // The instance as kept, sent again: processing keeps it byte for byte, UIDs and all, and the answer says so.
    const kept = Buffer.from(await (await fetch(`${server.api}/study-petitions-files/${rows[0]!.id}/contents/${(contents.body.data.entries as { id: number }[])[0]!.id}/download`, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer());
    const again = await stow(projectId, multipart([kept]));
    expect(again.status).toBe(200);
    const keptItem = seq(JSON.parse(again.text), '00081199')[0]!;
    expect(str(keptItem, '00081155')).toBe(str(item, '00081155'));
    expect(str(keptItem, '00081190')).toBe(str(item, '00081190'));
    const second = ((await listFiles(server.api, token, projectId)).body.data as { id: number }[]).find((r) => r.id !== rows[0]!.id)!;
    expect((await waitProcessed(server.api, token, projectId, second.id)).processing.status).toBe('ready');
    const secondEntries = (await call(`${server.api}/study-petitions-files/${second.id}/contents`, { token })).body.data.entries as { dicom: { sop_instance_uid: string } }[];
    expect(secondEntries.map((e) => e.dicom.sop_instance_uid)).toEqual([str(item, '00081155')]);
  });

  it('refuses parts past the company’s allowance as out of resources, keeping those that fit', async () => {
    const small = await makeCompany(server.services);
    const user = await login(server.api, (await makeUser(server.services, { company: small })).username, PASSWORD);
    const ct = dicomFixture(FIXTURES[0]!);
    expect((await call(`${server.api}/admin/companies/${small.id}`, { method: 'PUT', token: admin, json: { quota_bytes: ct.length + 10 } })).status).toBe(200);
    const project = await makeProject(server.services, small);
    const answer = await stow(project.id, multipart([ct, dicomFixture(FIXTURES[1]!)]), { token: user });
    expect(answer.status).toBe(202);
    const failed = seq(JSON.parse(answer.text), '00081198');
    expect(failed.map((f) => str(f, '00081197'))).toEqual([0xa700]);
    expect(str(failed[0]!, '0040A160')).toMatch(/^Part 2 was not kept: /);
  });

  it('keeps to the project’s tenant and roles', async () => {
    const project = await makeProject(server.services, company);
    const body = multipart([dicomFixture(FIXTURES[0]!)]);
    expect((await stow(project.id, body, { token: undefined })).status).toBe(401);
    expect((await stow(project.id, body, { token: readOnly })).status).toBe(403);
    expect((await stow(project.id, body, { token: stranger })).status).toBe(404);
    expect((await stow(999_999, body, { token })).status).toBe(404);
    expect((await listFiles(server.api, token, project.id)).body.data).toHaveLength(0);
  });
});
