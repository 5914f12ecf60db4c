// Issue 14: an upload's summary adds up (entries = instances + duplicates + other + unreadable +
// skipped) and says what each entry was, for archives and for a folder sent as a delivery.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TProcessingSummary } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { DICOMDIR_NOTE } from '../../src/ingest/summary.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, encodeMetadata } from '../tus.js';
import { dicomFixture, listFiles, makeArchive, upload } from '../uploads.js';

type Entry = { path: string; kind: string; reason: string | null };

function addsUp(s: TProcessingSummary): boolean {
  return s.entries === s.instances + s.duplicates + s.conflicts + s.other + s.unreadable + s.skipped;
}

describe.each(dialects())('summaries that add up on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  let scratch: string;
  let noSop: Buffer;

  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { jobs: true });
    company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-summary-'));
    // A real instance with its SOP Instance UID removed by dcmtk, written as a bare data set so no
    // meta header names it either: DICOM that says nothing of which instance it is.
    const file = path.join(scratch, 'nosop.dcm');
    fs.copyFileSync(path.join(import.meta.dirname, '../fixtures/dicom/s01_CT_small.dcm'), file);
    execFileSync('dcmodify', ['-nb', '-ea', '(0008,0018)', file]);
    execFileSync('dcmconv', ['-F', file, `${file}.bare`]);
    noSop = fs.readFileSync(`${file}.bare`);
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  async function processed(projectId: number, fileId: number) {
    for (let i = 0; i < 600; i += 1) {
      const row = (await listFiles(server.api, token, projectId)).body.data.find((f: { id: number }) => f.id === fileId);
      if (row.processing.status === 'ready' || row.processing.status === 'failed') {
        const contents = await call(`${server.api}/study-petitions-files/${fileId}/contents?limit=500`, { token });
        return { summary: row.processing.summary as TProcessingSummary, entries: contents.body.data.entries as Entry[], total: contents.body.data.page.total as number };
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('processing did not finish');
  }

  async function uploadZip(projectId: number, name: string, members: Record<string, Buffer>) {
    const zip = makeArchive(scratch, members, `zip -q -r ${name} .`, name);
    const answer = await upload(server.api, token, { name, data: zip }, projectId);
    expect(answer.status).toBe(201);
    return processed(projectId, answer.body.data[0].id as number);
  }

  it('counts each entry once: a copy of an instance, DICOM without SOP Instance UID, a DICOMDIR, a text file', async () => {
    const p = await makeProject(server.services, company);
    const { summary, entries, total } = await uploadZip(p.id, 'cd.zip', {
      'A/IM1': dicomFixture('s03_CT_series5N_2062.dcm'),
      'B/IM1': dicomFixture('s03_CT_series5N_2062.dcm'),
      'A/IM2': noSop,
      DICOMDIR: dicomFixture('s40_DICOMDIR'),
      'README.TXT': Buffer.from('Open DICOMDIR with any viewer.\n'),
    });
    expect(summary).toMatchObject({
      entries: 5,
      instances: 1,
      duplicates: 1,
      in_project: 0,
      other: 2,
      dicomdirs: 1,
      unreadable: 1,
      unreadable_reasons: { 'no SOP Instance UID': 1 },
      skipped: 0,
    });
    expect(addsUp(summary)).toBe(true);
    // Every entry is listed, and the ones that are not instances say why in words.
    expect(total).toBe(summary.entries);
    const byPath = new Map(entries.map((e) => [e.path, e]));
    expect(byPath.get('A/IM2')).toMatchObject({ kind: 'dicom', reason: 'no SOP Instance UID' });
    expect(byPath.get('DICOMDIR')).toMatchObject({ kind: 'other', reason: DICOMDIR_NOTE });
  });

  it('says how many instances the project already held, counting only live uploads', async () => {
    const p = await makeProject(server.services, company);
    const first = await upload(server.api, token, { name: 'IM1.dcm', data: dicomFixture('s03_CT_series5N_2062.dcm') }, p.id);
    const firstSummary = (await processed(p.id, first.body.data[0].id as number)).summary;
    expect(firstSummary).toMatchObject({ entries: 1, instances: 1, in_project: 0 });

    const second = await uploadZip(p.id, 'more.zip', { IM1: dicomFixture('s03_CT_series5N_2062.dcm'), IM2: dicomFixture('s04_CT_series5N_2392.dcm') });
    expect(second.summary).toMatchObject({ entries: 2, instances: 2, duplicates: 0, in_project: 1 });

    // Another project's copy is not this project's; a deleted upload no longer holds anything.
    const other = await makeProject(server.services, company);
    expect((await uploadZip(other.id, 'elsewhere.zip', { IM1: dicomFixture('s03_CT_series5N_2062.dcm') })).summary).toMatchObject({ in_project: 0 });
    expect((await call(`${server.api}/study-petitions-files-delete/${first.body.data[0].id}`, { method: 'PUT', token })).status).toBe(200);
    expect((await uploadZip(p.id, 'again.zip', { IM2: dicomFixture('s04_CT_series5N_2392.dcm'), IM3: dicomFixture('s05_CT_series5N_2693.dcm') })).summary).toMatchObject({
      instances: 2,
      in_project: 1,
    });
  });

  it('adds up for a folder sent as a delivery, with an archive and a damaged one inside', async () => {
    const p = await makeProject(server.services, company);
    const inner = makeArchive(scratch, { IM9: dicomFixture('s06_CT_series5N_3023.dcm'), COPY: dicomFixture('s03_CT_series5N_2062.dcm') }, 'zip -q -0 inner.zip IM9 COPY', 'inner.zip');
    const folder: Record<string, Buffer> = {
      DICOMDIR: dicomFixture('s40_DICOMDIR'),
      'DICOM/IM1': dicomFixture('s03_CT_series5N_2062.dcm'),
      'DICOM/IM2': noSop,
      'EXTRA/inner.zip': inner,
      'EXTRA/BROKEN.zip': Buffer.concat([inner.subarray(0, 30), Buffer.alloc(2000, 0x5a)]),
    };
    const delivery: number = (await call(`${server.api}/deliveries`, { method: 'POST', token, json: { studypetitionid: p.id, name: 'CD' } })).body.data[0].id;
    for (const [relativePath, data] of Object.entries(folder)) {
      const meta = encodeMetadata({ filename: path.basename(relativePath), delivery: String(delivery), relativePath });
      expect((await createUpload(server.api, token, { size: data.length, body: data, metadata: meta })).status).toBe(201);
    }
    const fileId: number = (await call(`${server.api}/deliveries/${delivery}/complete`, { method: 'POST', token })).body.data[0].file_id;
    const { summary, total } = await processed(p.id, fileId);
    expect(summary).toMatchObject({ entries: 6, instances: 2, duplicates: 1, other: 1, dicomdirs: 1, unreadable: 1, skipped: 1 });
    expect(addsUp(summary)).toBe(true);
    expect(total).toBe(summary.entries);
  });
});
