// The de-identification report (issue 33, item 5): each file answer carries what de-identification
// did to it (null in a project that keeps identity as sent); the contents mark the instances flagged
// for a person's review, list them first and can be filtered to them; another company sees nothing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROLES, ZDeidentificationReport, ZFileContentsResponse } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, encodeMetadata } from '../tus.js';
import { FIXTURES, upload, waitProcessed as waitProcessedIn } from '../uploads.js';

/** A CT fixture with a planted patient, and optionally Burned In Annotation set, written by dcmtk. */
function fixture(scratch: string, name: string, burnedIn?: 'YES'): Buffer {
  const file = path.join(scratch, `${name}-${burnedIn ?? 'plain'}.dcm`);
  fs.copyFileSync(path.join(FIXTURES, 'dicom', name), file);
  const edits = ['-i', '(0010,0010)=PLANTED^REPORTQ', '-i', '(0010,0020)=REPORTID5511', ...(burnedIn ? ['-i', `(0028,0301)=${burnedIn}`] : [])];
  execFileSync('dcmodify', ['-nb', ...edits, file]);
  return fs.readFileSync(file);
}

describe.each(dialects())('the de-identification report, %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  let admin: string;
  let stranger: string;
  let scratch: string;

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-deid-report-'));
    server = await startTestServer(dialect, { UPLOAD_MAX_OPEN_PER_USER: '50' }, { jobs: true });
    company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    admin = await login(server.api, (await makeUser(server.services, { role: ROLES.SysAdmin })).username, PASSWORD);
    const other = await makeCompany(server.services);
    stranger = await login(server.api, (await makeUser(server.services, { company: other })).username, PASSWORD);
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  async function project(profile: 'basic' | 'off'): Promise<number> {
    const made = await makeProject(server.services, company);
    const put = await call(`${server.api}/study-petitions/${made.id}/deidentification`, { method: 'PUT', token: admin, json: { profile, options: [] } });
    expect(put.status).toBe(200);
    return made.id;
  }
  const waitProcessed = (projectId: number, fileId: number) => waitProcessedIn(server.api, token, projectId, fileId);
  const contents = async (fileId: number, query = '', as = token) => {
    const answer = await call(`${server.api}/study-petitions-files/${fileId}/contents?${query || 'limit=100'}`, { token: as });
    return { status: answer.status, data: answer.status === 200 ? ZFileContentsResponse.parse(answer.body).data : undefined };
  };

  it('a DICOM file with identity sent by multipart: the answer reports one instance de-identified by the server, with counts', async () => {
    const projectId = await project('basic');
    const sent = await upload(server.api, token, { name: 'planted.dcm', data: fixture(scratch, 's01_CT_small.dcm') }, projectId);
    expect(sent.status).toBe(201);
    const row = await waitProcessed(projectId, sent.body.data[0].id);
    expect(row.processing.status).toBe('ready');
    const report = ZDeidentificationReport.parse(row.deidentification);
    expect(report).toMatchObject({ profile: 'basic', deidentified_by: 'server', instances: { browser: 0, server: 1, refused: 0 }, needs_review: [], needs_review_total: 0 });
    expect(report.counts.removed + report.counts.replaced).toBeGreaterThan(0);
    expect(report.counts.uids_replaced).toBeGreaterThan(0);
    expect(JSON.stringify(row)).not.toContain('REPORTID5511');
    const listed = await contents(row.id);
    expect(listed.data!.entries.map((e) => e.needs_review_reason)).toEqual([null]);
  });

  it('instances that say text is burned into their pixels, or are ultrasound without saying, are flagged, listed first with their reason, and alone with review=1', async () => {
    const projectId = await project('basic');
    const delivery: number = (await call(`${server.api}/deliveries`, { method: 'POST', token, json: { studypetitionid: projectId, name: 'CD export' } })).body.data[0].id;
    const send = async (relativePath: string, data: Buffer) => {
      const sent = await createUpload(server.api, token, {
        size: data.length,
        body: data,
        metadata: encodeMetadata({ filename: path.posix.basename(relativePath), delivery: String(delivery), relativePath }),
      });
      expect(sent.status).toBe(201);
    };
    await send('DICOM/A1', fixture(scratch, 's03_CT_series5N_2062.dcm'));
    await send('DICOM/A2', fixture(scratch, 's04_CT_series5N_2392.dcm'));
    await send('DICOM/Z9', fixture(scratch, 's05_CT_series5N_2693.dcm', 'YES'));
    // An ultrasound image that does not say whether text is burned in: flagged for its kind.
    await send('DICOM/M5', fixture(scratch, 's13_US_rgb_bigendian.dcm'));
    const completed = await call(`${server.api}/deliveries/${delivery}/complete`, { method: 'POST', token });
    expect(completed.status).toBe(200);
    const fileId: number = completed.body.data[0].file_id;
    const row = await waitProcessed(projectId, fileId);
    expect(row.processing.status).toBe('ready');
    const report = ZDeidentificationReport.parse(row.deidentification);
    expect(report.instances.server).toBe(4);
    expect(report.needs_review_total).toBe(2);
    const reasons = Object.fromEntries(report.needs_review.map((item) => [item.path, item.reason]));
    expect(reasons['DICOM/Z9']).toContain('Burned In Annotation: YES');
    expect(reasons['DICOM/M5']).toContain('ultrasound');
    for (const item of report.needs_review) expect(item.sop_instance_uid).toMatch(/^2\.25\./);

    const all = (await contents(fileId)).data!;
    const flaggedFirst = all.entries.slice(0, 2).map((e) => e.path);
    expect([...flaggedFirst].sort()).toEqual(['DICOM/M5', 'DICOM/Z9']);
    expect(all.entries.slice(2).map((e) => e.path)).toEqual(['DICOM/A1', 'DICOM/A2']);
    expect(all.entries.map((e) => e.needs_review_reason)).toEqual([reasons[flaggedFirst[0]!], reasons[flaggedFirst[1]!], null, null]);
    expect(all.page.total).toBe(4);
    // Paging cuts the same order: the flagged entries, then the others from the first.
    expect((await contents(fileId, 'limit=1')).data!.entries.map((e) => e.path)).toEqual([flaggedFirst[0]]);
    expect((await contents(fileId, 'offset=1&limit=2')).data!.entries.map((e) => e.path)).toEqual([flaggedFirst[1], 'DICOM/A1']);
    expect((await contents(fileId, 'offset=3&limit=5')).data!.entries.map((e) => e.path)).toEqual(['DICOM/A2']);
    const flagged = (await contents(fileId, 'review=1')).data!;
    expect(flagged.entries.map((e) => e.path)).toEqual(flaggedFirst);
    expect(flagged.page.total).toBe(2);
    expect((await contents(fileId, 'review=1&offset=1&limit=5')).data!.entries.map((e) => e.path)).toEqual([flaggedFirst[1]]);
    expect((await call(`${server.api}/study-petitions-files/${fileId}/contents?review=maybe`, { token })).status).toBe(400);
  });

  it('a project that keeps identity as sent: the file has no report and no entry is flagged', async () => {
    const projectId = await project('off');
    const sent = await upload(server.api, token, { name: 'kept.dcm', data: fixture(scratch, 's06_CT_series5N_3023.dcm', 'YES') }, projectId);
    const row = await waitProcessed(projectId, sent.body.data[0].id);
    expect(row.processing.status).toBe('ready');
    expect(row.deidentification).toBeNull();
    const listed = (await contents(row.id)).data!;
    expect(listed.entries.map((e) => e.needs_review_reason)).toEqual([null]);
    expect((await contents(row.id, 'review=1')).data!).toMatchObject({ entries: [], page: { total: 0 } });
  });

  it("another company's file: its contents, flagged or not, are 404 like an unknown file's", async () => {
    const projectId = await project('basic');
    const sent = await upload(server.api, token, { name: 'theirs.dcm', data: fixture(scratch, 's07_CT_series5N_3353.dcm', 'YES') }, projectId);
    const row = await waitProcessed(projectId, sent.body.data[0].id);
    expect(row.deidentification).not.toBeNull();
    expect((await contents(row.id, '', stranger)).status).toBe(404);
    expect((await contents(row.id, 'review=1', stranger)).status).toBe(404);
    const list = await call(`${server.api}/study-petitions-files?study_petition_id=${projectId}`, { token: stranger });
    expect(list.status).toBe(404);
  });
});
