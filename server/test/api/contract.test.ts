// Every answer the web app reads, parsed with the shared contract's own schemas on both databases:
// PostgreSQL hands back bigints and timestamps differently from SQLite, and the web app trusts
// these shapes (a size as a string would print as text and sort wrong).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ZCompany, ZFileContents, ZLoginResponse, ZProject, ZProjectFile, ZUser } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dialects } from '../databases.js';
import { makeCompany, makeUser, PASSWORD } from '../factories.js';
import { call } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { dicomFixture, makeArchive, upload } from '../uploads.js';

const data = <T extends z.ZodType>(schema: T) => z.strictObject({ data: schema });

describe.each(dialects())('API answers match the contract on %s', (dialect) => {
  let server: TestServer;
  let scratch: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { jobs: true });
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-contract-'));
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('for the user, the company, projects, files with their processing, and contents', async () => {
    const company = await makeCompany(server.services);
    const user = await makeUser(server.services, { company });
    const session = await call(`${server.api}/login`, { json: { username: user.username, password: PASSWORD } });
    const { token } = ZLoginResponse.parse(session.body);

    data(z.array(ZUser)).parse((await call(`${server.api}/me`, { token })).body);
    data(z.array(ZCompany)).parse((await call(`${server.api}/company/${company.id}`, { token })).body);
    const created = data(z.array(ZProject)).parse((await call(`${server.api}/study-petitions`, { token, json: { name: 'Contract' } })).body);
    const projectId = created.data[0]!.id;
    data(z.array(ZProject)).parse((await call(`${server.api}/study-petitions`, { token })).body);
    data(z.array(ZProject)).parse((await call(`${server.api}/study-petitions/${projectId}`, { token })).body);

    // A stored zip (entries read in place, with offsets) and a deflated one (entries written out).
    const members = { 'a.dcm': dicomFixture('s01_CT_small.dcm'), 'b.txt': Buffer.from('note') };
    for (const compression of ['store', 'deflate']) {
      const zip = makeArchive(scratch, members, `bsdtar --format zip --options zip:compression=${compression} -cf out.zip *`, 'out.zip');
      expect((await upload(server.api, token, { name: `${compression}.zip`, data: zip }, projectId)).status).toBe(201);
    }
    let files: z.infer<typeof ZProjectFile>[] = [];
    for (let i = 0; i < 300 && !(files.length === 2 && files.every((f) => f.processing.status === 'ready')); i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      files = data(z.array(ZProjectFile)).parse((await call(`${server.api}/study-petitions-files?study_petition_id=${projectId}`, { token })).body).data;
    }
    expect(files.map((f) => f.processing.status)).toEqual(['ready', 'ready']);
    for (const file of files) {
      const contents = data(ZFileContents).parse((await call(`${server.api}/study-petitions-files/${file.id}/contents`, { token })).body).data;
      expect(contents.entries.map((e) => [e.path, e.kind])).toEqual([
        ['a.dcm', 'dicom'],
        ['b.txt', 'other'],
      ]);
      expect(contents.studies).toHaveLength(1);
    }
  });
});
