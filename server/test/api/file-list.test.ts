// The files table searched, filtered, sorted and paged by the server (issue 14, item 6), on real
// uploads through a listening server, on both databases.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FILE_SORT_KEYS, ROLES, type TFileSort, type TProcessingStatus, type TProjectFile } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { dicomFixture, makeArchive, upload } from '../uploads.js';

/** Names with SQL wildcards in them, mixed case, and two that differ only in case. */
const FILES: { name: string; note: number; status: TProcessingStatus }[] = [
  { name: 'Alpha_01.zip', note: 40, status: 'ready' },
  { name: 'alpha%02.zip', note: 900, status: 'failed' },
  { name: 'BETA-03.zip', note: 10, status: 'pending' },
  { name: 'beta_x.zip', note: 300, status: 'processing' },
  { name: 'Gamma 5.zip', note: 40, status: 'ready' },
  { name: 'delta.zip', note: 2000, status: 'failed' },
  { name: 'Epsilon%.zip', note: 70, status: 'ready' },
  { name: 'zeta.zip', note: 5, status: 'pending' },
  { name: 'eta_eta.zip', note: 1234, status: 'processing' },
  { name: 'Theta.zip', note: 600, status: 'ready' },
  { name: 'iota.zip', note: 77, status: 'failed' },
  { name: 'IOTA.zip', note: 78, status: 'pending' },
  { name: 'alpha02.zip', note: 150, status: 'ready' },
];

type Row = TProjectFile;

/** The order the server promises: by the column (names without case), ties by id in the same direction. */
function expectedOrder(rows: Row[], sort: TFileSort, order: 'asc' | 'desc'): number[] {
  const value = (r: Row) => (sort === 'file' ? r.file.toLowerCase() : r[sort]);
  const sign = order === 'asc' ? 1 : -1;
  return [...rows]
    .sort((a, b) => {
      const [va, vb] = [value(a), value(b)];
      if (va !== vb) return (va < vb ? -1 : 1) * sign;
      return (a.id - b.id) * sign;
    })
    .map((r) => r.id);
}

describe.each(dialects())('finding files on %s', (dialect) => {
  let server: TestServer;
  let scratch: string;
  let project: ProjectRow;
  let token: string;
  let all: Row[];

  const list = (query: string, as = token) => call(`${server.api}/study-petitions-files?study_petition_id=${project.id}${query}`, { token: as });

  beforeAll(async () => {
    // No job runner: each file keeps the processing status the test gives it.
    server = await startTestServer(dialect);
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-file-list-'));
    const company = await makeCompany(server.services);
    const user = await makeUser(server.services, { company });
    token = await login(server.api, user.username, PASSWORD);
    project = await makeProject(server.services, company);
    const { db } = server.services.handle;
    for (const [i, f] of FILES.entries()) {
      const zip = makeArchive(scratch, { 'note.txt': Buffer.alloc(f.note, 'n') }, 'bsdtar --format zip --options zip:compression=store -cf out.zip note.txt', 'out.zip');
      const answer = await upload(server.api, token, { name: f.name, data: zip }, project.id);
      expect(answer.status).toBe(201);
      const id: number = answer.body.data[0].id;
      await server.services.repos.files.setProcessing(id, { status: f.status });
      // Updated in another order than created, so the two sorts differ; two files share a time.
      const updated = new Date(Date.UTC(2026, 0, 1, 12, (i * 7) % FILES.length === 3 ? 5 : (i * 7) % FILES.length)).toISOString();
      await db.updateTable('project_files').set({ updated_at: updated }).where('id', '=', id).execute();
    }
    // A DICOM file, deleted: never listed, never counted.
    const gone = await upload(server.api, token, { name: 'alpha-deleted.dcm', data: dicomFixture('s01_CT_small.dcm') }, project.id);
    expect((await call(`${server.api}/study-petitions-files-delete/${gone.body.data[0].id}`, { method: 'PUT', token })).status).toBe(200);
    all = (await list('')).body.data;
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('answers the spec’s list unchanged without finding parameters: every live file, newest first, no page object', async () => {
    const answer = await list('');
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body)).toEqual(['data']);
    expect(answer.body.data.map((f: Row) => f.file)).toEqual(FILES.map((f) => f.name).reverse());
    const ids = answer.body.data.map((f: Row) => f.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    // Sizes differ (and two are equal), as do the two time columns: the sorts below mean something.
    expect(new Set(all.map((f) => f.filesize)).size).toBe(FILES.length - 1);
    expect(expectedOrder(all, 'updated_at', 'asc')).not.toEqual(expectedOrder(all, 'created_at', 'asc'));
  });

  it.each(FILE_SORT_KEYS.flatMap((sort) => (['asc', 'desc'] as const).map((order) => [sort, order] as const)))(
    'sorts by %s %s, and pages through it without overlap or gap, with the total',
    async (sort, order) => {
      const expected = expectedOrder(all, sort, order);
      const whole = await list(`&sort=${sort}&order=${order}&per_page=500`);
      expect(whole.body.page).toEqual({ page: 1, per_page: 500, total: FILES.length });
      expect(whole.body.data.map((f: Row) => f.id)).toEqual(expected);
      const seen: number[] = [];
      for (const page of [1, 2, 3]) {
        const answer = await list(`&sort=${sort}&order=${order}&page=${page}&per_page=5`);
        expect(answer.status).toBe(200);
        expect(answer.body.page).toEqual({ page, per_page: 5, total: FILES.length });
        expect(answer.body.data.length).toBe(page < 3 ? 5 : FILES.length - 10);
        seen.push(...answer.body.data.map((f: Row) => f.id));
      }
      expect(seen).toEqual(expected);
      const past = await list(`&sort=${sort}&order=${order}&page=4&per_page=5`);
      expect(past.body).toEqual({ data: [], page: { page: 4, per_page: 5, total: FILES.length } });
    },
  );

  it('pages newest first by default, 25 to a page, and ascending when only a sort key is given', async () => {
    const answer = await list('&page=1');
    expect(answer.body.page).toEqual({ page: 1, per_page: 25, total: FILES.length });
    expect(answer.body.data.map((f: Row) => f.id)).toEqual(all.map((f) => f.id));
    const bySize = await list('&sort=filesize');
    expect(bySize.body.data.map((f: Row) => f.id)).toEqual(expectedOrder(all, 'filesize', 'asc'));
  });

  it('filters by one processing status or several, with the total of the matches', async () => {
    for (const status of ['pending', 'processing', 'ready', 'failed'] as const) {
      const answer = await list(`&status=${status}&per_page=2`);
      const matching = all.filter((f) => f.processing.status === status);
      expect(answer.body.page.total).toBe(matching.length);
      expect(answer.body.data.map((f: Row) => f.id)).toEqual(matching.slice(0, 2).map((f) => f.id));
    }
    const inProgress = await list('&status=pending,processing&sort=file');
    const expected = all.filter((f) => ['pending', 'processing'].includes(f.processing.status));
    expect(inProgress.body.page.total).toBe(expected.length);
    expect(inProgress.body.data.map((f: Row) => f.id)).toEqual(expectedOrder(expected, 'file', 'asc'));
  });

  it('searches names without case, matching % and _ literally, together with the status filter', async () => {
    const names = async (query: string) => (await list(`${query}&sort=file&per_page=500`)).body.data.map((f: Row) => f.file);
    expect(await names('&q=%25')).toEqual(['alpha%02.zip', 'Epsilon%.zip']);
    expect(await names('&q=_')).toEqual(['Alpha_01.zip', 'beta_x.zip', 'eta_eta.zip']);
    expect(await names('&q=a_0')).toEqual(['Alpha_01.zip']);
    expect(await names('&q=a%250')).toEqual(['alpha%02.zip']);
    // By name without case: '%' (U+0025) < '0' < '_' (U+005F).
    expect(await names('&q=ALPHA')).toEqual(['alpha%02.zip', 'alpha02.zip', 'Alpha_01.zip']);
    expect(await names('&q=iota')).toEqual(['iota.zip', 'IOTA.zip']);
    expect(await names('&q=alpha&status=failed')).toEqual(['alpha%02.zip']);
    expect(await names('&q=%5C')).toEqual([]);
    const none = await list('&q=deleted');
    expect(none.body).toEqual({ data: [], page: { page: 1, per_page: 25, total: 0 } });
  });

  it('refuses bad parameters with 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['&sort=size', 'sort: must be one of file, filesize, created_at, updated_at'],
      ['&sort=file&order=up', 'order: must be asc or desc'],
      ['&status=done', 'status: must be one or more of pending, processing, ready, failed, separated by commas'],
      ['&status=ready,', 'status: must be one or more of pending, processing, ready, failed, separated by commas'],
      ['&per_page=0', 'per_page: must be a whole number from 1 to 500'],
      ['&per_page=501', 'per_page: must be a whole number from 1 to 500'],
      ['&per_page=ten', 'per_page: must be a whole number from 1 to 500'],
      ['&page=0', 'page: must be a whole number from 1'],
      ['&page=1.5', 'page: must be a whole number from 1'],
      ['&page=1&page=2', 'page: must be a whole number from 1'],
      ['&sort=file&sort=filesize', 'sort: must be one of file, filesize, created_at, updated_at'],
      ['&status=ready&status=failed', 'status: must be one or more of pending, processing, ready, failed, separated by commas'],
      ['&q=a&q=b', 'q: must be given once, as text'],
      [`&q=${'x'.repeat(201)}`, 'q: must be at most 200 characters'],
    ];
    for (const [query, message] of cases) {
      expect([query, await list(query)]).toMatchObject([query, { status: 400, body: { message } }]);
    }
  });

  it("answers another company's project 404 with or without parameters, and lets a SysUser page it", async () => {
    const outsider = await makeUser(server.services, { company: await makeCompany(server.services) });
    const outsiderToken = await login(server.api, outsider.username, PASSWORD);
    expect(await list('', outsiderToken)).toMatchObject({ status: 404, body: { message: 'Project not found' } });
    expect(await list('&page=1&per_page=5', outsiderToken)).toMatchObject({ status: 404, body: { message: 'Project not found' } });
    const sys = await makeUser(server.services, { company: await makeCompany(server.services), role: ROLES.SysUser });
    const sysToken = await login(server.api, sys.username, PASSWORD);
    const answer = await list('&sort=created_at&order=desc&per_page=3', sysToken);
    expect(answer.status).toBe(200);
    expect(answer.body.page).toEqual({ page: 1, per_page: 3, total: FILES.length });
    expect(answer.body.data.map((f: Row) => f.id)).toEqual(all.slice(0, 3).map((f) => f.id));
  });
});
