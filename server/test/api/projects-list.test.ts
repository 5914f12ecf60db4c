// The projects list searched, sorted and paged by the server, with each project's company, uploads,
// studies and newest upload (issue 36, item 4), through a listening server with its job runner, on
// both databases.
import { PROJECT_SORT_KEYS, ROLES, ZProjectsList, type TListedProject, type TProjectSort } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow, ProjectRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { dicomFixture, upload, waitProcessed } from '../uploads.js';

type Row = TListedProject;

/** The order the server promises: by the column (names without case), missing values last, ties by id in the same direction. */
function expectedOrder(rows: Row[], sort: TProjectSort, order: 'asc' | 'desc'): number[] {
  const value = (r: Row): string | number | null =>
    sort === 'name' ? r.name.toLowerCase() : sort === 'company' ? r.companyname.toLowerCase() : r[sort];
  const sign = order === 'asc' ? 1 : -1;
  return [...rows]
    .sort((a, b) => {
      const [va, vb] = [value(a), value(b)];
      if (va === null || vb === null) {
        if (va !== vb) return va === null ? 1 : -1;
      } else if (va !== vb) {
        return (va < vb ? -1 : 1) * sign;
      }
      return (a.id - b.id) * sign;
    })
    .map((r) => r.id);
}

describe.each(dialects())('the projects list on %s', (dialect) => {
  let server: TestServer;
  let acme: CompanyRow;
  let beta: CompanyRow;
  let acmeToken: string;
  let betaToken: string;
  let sysUserToken: string;
  let sysAdminToken: string;
  const projects: Record<string, ProjectRow> = {};

  const list = (query: string, token = sysAdminToken) => call(`${server.api}/study-petitions${query}`, { token });
  const uploadTo = async (project: ProjectRow, name: string, fixture: string, token = acmeToken) => {
    const answer = await upload(server.api, token, { name, data: dicomFixture(fixture) }, project.id);
    expect(answer.status).toBe(201);
    const id: number = answer.body.data[0].id;
    await waitProcessed(server.api, token, project.id, id);
    return id;
  };

  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { jobs: true });
    acme = await makeCompany(server.services, 'acme Imaging');
    beta = await makeCompany(server.services, 'Beta Clinics');
    const staff = await makeCompany(server.services, 'Portal staff');
    const acmeUser = await makeUser(server.services, { company: acme });
    const betaUser = await makeUser(server.services, { company: beta });
    acmeToken = await login(server.api, acmeUser.username, PASSWORD);
    betaToken = await login(server.api, betaUser.username, PASSWORD);
    sysUserToken = await login(server.api, (await makeUser(server.services, { company: staff, role: ROLES.SysUser })).username, PASSWORD);
    sysAdminToken = await login(server.api, (await makeUser(server.services, { company: staff, role: ROLES.SysAdmin })).username, PASSWORD);
    // Names with the LIKE wildcards and mixed case; created in an order that no sort repeats.
    for (const [key, company, name] of [
      ['brain', acme, 'Brain MRI'],
      ['liver', acme, 'liver_CT 2026'],
      ['empty', acme, 'Empty cohort'],
      ['percent', acme, '100% Chest'],
      ['knee', beta, 'Knee X-ray'],
      ['brainBeta', beta, 'brain follow-up'],
    ] as const) {
      projects[key] = await makeProject(server.services, company, name);
    }
    // Two studies in one project (CT and MR), one in another, none in a third with only a deleted upload.
    await uploadTo(projects.brain!, 'ct.dcm', 's01_CT_small.dcm');
    await uploadTo(projects.brain!, 'mr.dcm', 's10_MR_small_implicit.dcm');
    await uploadTo(projects.brain!, 'ct-again.dcm', 's01_CT_small.dcm');
    await uploadTo(projects.liver!, 'us.dcm', 's13_US_rgb_bigendian.dcm');
    const gone = await uploadTo(projects.percent!, 'gone.dcm', 's01_CT_small.dcm');
    expect((await call(`${server.api}/study-petitions-files-delete/${gone}`, { method: 'PUT', token: acmeToken })).status).toBe(200);
    await uploadTo(projects.knee!, 'knee.dcm', 's34_OT_deflated_image_dfl.dcm', betaToken);
  }, 120_000);
  afterAll(async () => {
    await server.close();
  });

  const byId = (rows: Row[]) => new Map(rows.map((r) => [r.id, r]));

  it('without parameters answers the spec’s list (every project, newest first, no page) with counts, company and newest upload', async () => {
    const answer = await list('', acmeToken);
    expect(answer.status).toBe(200);
    expect(answer.body.page).toBeUndefined();
    const rows: Row[] = ZProjectsList.parse(answer.body).data;
    expect(rows.map((r) => r.name)).toEqual(['100% Chest', 'Empty cohort', 'liver_CT 2026', 'Brain MRI']);
    const found = byId(rows);
    const brain = found.get(projects.brain!.id)!;
    expect(brain).toMatchObject({ companyname: 'acme Imaging', files: 3, studies: 2, valid: true, status: 'Pendant' });
    expect(found.get(projects.liver!.id)).toMatchObject({ files: 1, studies: 1 });
    // The deleted upload counts for nothing, and leaves no newest upload.
    expect(found.get(projects.percent!.id)).toMatchObject({ files: 0, studies: 0, last_upload_at: null });
    expect(found.get(projects.empty!.id)).toMatchObject({ files: 0, studies: 0, last_upload_at: null });
    const brainFiles = (await call(`${server.api}/study-petitions-files?study_petition_id=${projects.brain!.id}`, { token: acmeToken })).body.data as { created_at: string }[];
    expect(brain.last_upload_at).toBe(brainFiles.map((f) => f.created_at).sort().at(-1));
  });

  it('counts follow uploads and deletions at once', async () => {
    const first = (await list('', acmeToken)).body.data.find((r: Row) => r.id === projects.empty!.id) as Row;
    expect(first.files).toBe(0);
    const id = await uploadTo(projects.empty!, 'new.dcm', 's01_CT_small.dcm');
    const after = (await list('?sort=files&order=desc', acmeToken)).body.data.find((r: Row) => r.id === projects.empty!.id) as Row;
    expect(after).toMatchObject({ files: 1, studies: 1 });
    expect(after.last_upload_at).not.toBeNull();
    expect((await call(`${server.api}/study-petitions-files-delete/${id}`, { method: 'PUT', token: acmeToken })).status).toBe(200);
    const gone = (await list('?q=empty', acmeToken)).body.data[0] as Row;
    expect(gone).toMatchObject({ files: 0, studies: 0, last_upload_at: null });
  });

  it('searches names without case, wildcards matching themselves, and counts every match', async () => {
    const names = async (query: string, token = sysAdminToken) => ((await list(query, token)).body.data as Row[]).map((r) => r.name).sort();
    expect(await names('?q=BRAIN')).toEqual(['Brain MRI', 'brain follow-up']);
    expect(await names('?q=brain', acmeToken)).toEqual(['Brain MRI']);
    expect(await names('?q=_')).toEqual(['liver_CT 2026']);
    expect(await names('?q=%25')).toEqual(['100% Chest']);
    expect(await names('?q=nothing-like-this')).toEqual([]);
    const paged = await list('?q=r&per_page=1');
    expect(paged.body.page).toEqual({ page: 1, per_page: 1, total: 5 });
  });

  it.each(PROJECT_SORT_KEYS.flatMap((sort) => (['asc', 'desc'] as const).map((order) => [sort, order] as const)))(
    'sorts by %s %s, page after page without overlap',
    async (sort, order) => {
      const every: Row[] = (await list('')).body.data;
      const expected = expectedOrder(every, sort, order);
      const seen: number[] = [];
      for (let page = 1; page <= 4; page += 1) {
        const answer = await list(`?sort=${sort}&order=${order}&page=${page}&per_page=2`);
        expect(answer.status).toBe(200);
        expect(answer.body.page).toEqual({ page, per_page: 2, total: every.length });
        seen.push(...(answer.body.data as Row[]).map((r) => r.id));
      }
      expect(seen).toEqual(expected);
    },
  );

  it('sorts ascending when only a column is given, and newest first when only paged', async () => {
    const every: Row[] = (await list('')).body.data;
    expect(((await list('?sort=name')).body.data as Row[]).map((r) => r.id)).toEqual(expectedOrder(every, 'name', 'asc'));
    const newest = await list('?page=1&per_page=25');
    expect((newest.body.data as Row[]).map((r) => r.id)).toEqual(every.map((r) => r.id));
    expect(newest.body.page.total).toBe(every.length);
    // Past the last page: nothing, and still the total.
    const past = await list('?page=9&per_page=5');
    expect(past.body).toEqual({ data: [], page: { page: 9, per_page: 5, total: every.length } });
  });

  it('lets SysUser and SysAdmin see every company and filter by one', async () => {
    for (const token of [sysUserToken, sysAdminToken]) {
      const every: Row[] = (await list('', token)).body.data;
      expect(new Set(every.map((r) => r.companyname))).toEqual(new Set(['acme Imaging', 'Beta Clinics']));
      const betaOnly: Row[] = (await list(`?company_id=${beta.id}&sort=company`, token)).body.data;
      expect(betaOnly.map((r) => r.name).sort()).toEqual(['Knee X-ray', 'brain follow-up']);
      expect((await list(`?company_id=${beta.id}&page=1&per_page=5`, token)).body.page.total).toBe(2);
      const companies = await call(`${server.api}/study-petitions-companies`, { token });
      expect(companies.status).toBe(200);
      const names = (companies.body.data as { companyname: string }[]).map((c) => c.companyname);
      expect(names).toEqual(expect.arrayContaining(['acme Imaging', 'Beta Clinics', 'Portal staff']));
      // By name, without case.
      expect(names).toEqual([...names].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)));
    }
  });

  it('never shows a company user another company’s projects, whatever the filter', async () => {
    const own: Row[] = (await list('', betaToken)).body.data;
    expect(own.map((r) => r.companyname)).toEqual(['Beta Clinics', 'Beta Clinics']);
    expect((await list(`?company_id=${acme.id}`, betaToken)).body.data).toEqual([]);
    expect((await list(`?company_id=${acme.id}&q=brain&page=1`, betaToken)).body).toEqual({ data: [], page: { page: 1, per_page: 25, total: 0 } });
    expect(((await list('?q=brain', betaToken)).body.data as Row[]).map((r) => r.name)).toEqual(['brain follow-up']);
    const companies = await call(`${server.api}/study-petitions-companies`, { token: betaToken });
    expect(companies.body).toEqual({ data: [{ id: beta.id, companyname: 'Beta Clinics' }] });
  });

  it('refuses bad parameters with words, and an unknown company id as not found', async () => {
    const refused = async (query: string, words: RegExp) => {
      const answer = await list(query);
      expect(answer.status).toBe(400);
      expect(answer.body.message).toMatch(words);
    };
    await refused('?sort=size', /sort: must be one of name, created_at, updated_at, files, studies, last_upload_at, company/);
    await refused('?order=up', /order: must be asc or desc/);
    await refused('?page=0', /page: must be a whole number from 1/);
    await refused('?per_page=501', /per_page: must be a whole number from 1 to 500/);
    await refused('?per_page=ten', /per_page: must be a whole number/);
    await refused(`?q=${'x'.repeat(201)}`, /q: must be at most 200 characters/);
    await refused('?sort=name&sort=files', /sort: must be one of/);
    const unknown = await list('?company_id=abc');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('Company not found');
    expect((await call(`${server.api}/study-petitions`)).status).toBe(401);
    expect((await call(`${server.api}/study-petitions-companies`)).status).toBe(401);
  });
});
