// Issue 31, item 11: what processing records agrees with dcmtk, and the summary counts every study
// and series its DICOM entries hold. The files are real fixtures changed by dcmtk's dcmodify.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TFileEntry, TProcessingSummary, TStudyNode } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { FIXTURES, listFiles, makeArchive, upload } from '../uploads.js';

/** A copy of a fixture with dcmodify's `-m` changes applied, and what dcmdump reads in it. */
function modified(scratch: string, fixture: string, name: string, changes: Record<string, string>) {
  const file = path.join(scratch, name);
  fs.copyFileSync(path.join(FIXTURES, 'dicom', fixture), file);
  execFileSync('dcmodify', ['-nb', ...Object.entries(changes).flatMap(([tag, value]) => ['-m', `${tag}=${value}`]), file]);
  const dump = (tag: string) => /\[(.*)\]/.exec(execFileSync('dcmdump', ['+P', tag, file], { encoding: 'utf8' }))?.[1] ?? null;
  return { data: fs.readFileSync(file), dump };
}

describe.each(dialects())('ingest fidelity on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  let scratch: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { jobs: true });
    company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-fidelity-'));
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
        expect(contents.status).toBe(200);
        const data = contents.body.data as { entries: TFileEntry[]; studies: TStudyNode[] };
        return { summary: row.processing.summary as TProcessingSummary, ...data };
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('processing did not finish');
  }

  it('keeps a NumberOfFrames that is not an integer as written, as dcmdump shows it, and a valid one as a number', async () => {
    const p = await makeProject(server.services, company);
    const odd = modified(scratch, 's21_RTDOSE_implicit.dcm', 'frames-1A.dcm', { '(0028,0008)': '1A' });
    expect(odd.dump('0028,0008')).toBe('1A');
    const members = { 'odd/RD1': odd.data, 'plain/RD1': fs.readFileSync(path.join(FIXTURES, 'dicom', 's21_RTDOSE_implicit.dcm')) };
    // The second is a copy of the first instance: both are listed with what each holds.
    const zip = makeArchive(scratch, members, 'zip -q -r frames.zip odd plain', 'frames.zip');
    const answer = await upload(server.api, token, { name: 'frames.zip', data: zip }, p.id);
    expect(answer.status).toBe(201);
    const { entries } = await processed(p.id, answer.body.data[0].id as number);
    const frames = Object.fromEntries(entries.map((e) => [e.path, e.dicom?.number_of_frames]));
    expect(frames).toEqual({ 'odd/RD1': '1A', 'plain/RD1': 15 });

    // A DICOM file uploaded alone is recorded by another statement (the one-row insert).
    const alone = await upload(server.api, token, { name: 'frames-1A.dcm', data: odd.data }, p.id);
    expect(alone.status).toBe(201);
    expect((await processed(p.id, alone.body.data[0].id as number)).entries.map((e) => e.dicom?.number_of_frames)).toEqual(['1A']);
  });

  it('counts the study and series of an entry that repeats another study\'s SOP Instance UID, as a conflict rather than a duplicate (issue 35)', async () => {
    const p = await makeProject(server.services, company);
    const first = fs.readFileSync(path.join(FIXTURES, 'dicom', 's03_CT_series5N_2062.dcm'));
    const sop = '1.3.6.1.4.1.5962.1.1.0.0.0.1194734704.16302.0.12';
    const copy = modified(scratch, 's04_CT_series5N_2392.dcm', 'other-study.dcm', {
      '(0020,000d)': '1.2.826.0.1.3680043.2.1125.31.11.1',
      '(0020,000e)': '1.2.826.0.1.3680043.2.1125.31.11.2',
      '(0008,0018)': sop,
    });
    expect(copy.dump('0008,0018')).toBe(sop);
    const zip = makeArchive(scratch, { 'A/IM1': first, 'B/IM1': copy.data }, 'zip -q -r two-studies.zip A B', 'two-studies.zip');
    const answer = await upload(server.api, token, { name: 'two-studies.zip', data: zip }, p.id);
    expect(answer.status).toBe(201);
    const { summary, entries, studies } = await processed(p.id, answer.body.data[0].id as number);
    expect(entries.map((e) => e.dicom?.sop_instance_uid)).toEqual([sop, sop]);
    expect(summary).toMatchObject({ entries: 2, instances: 1, duplicates: 0, conflicts: 1, studies: 2, series: 2 });
    // The same counts as the study tree of the same entries.
    expect(studies).toHaveLength(summary.studies);
    expect(studies.flatMap((s) => s.series)).toHaveLength(summary.series);
  });
});
