// The project's studies (issue 14, item 5) through a listening server with its job runner, on both
// databases: real DICOM files (and copies given new UIDs by dcmtk) in real zips, compared with what
// dcmtk reads from the same files.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROLES, STUDY_SORT_KEYS, ZProjectStudies, type TProjectStudy, type TStudySort } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow, ProjectRow } from '../../src/db/schema.js';
import { formatPersonName } from '../../src/studies/person-name.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { DICOM_DIR, sh } from '../ingest/helpers.js';
import { startTestServer, type TestServer } from '../server.js';
import { makeArchive, upload } from '../uploads.js';

const TAGS = {
  study: '0020,000d',
  series: '0020,000e',
  sop: '0008,0018',
  date: '0008,0020',
  description: '0008,1030',
  seriesDescription: '0008,103e',
  modality: '0008,0060',
  name: '0010,0010',
  id: '0010,0020',
} as const;
type Header = Record<keyof typeof TAGS, string | null>;

/** What dcmtk reads (converted to UTF-8 by dcmtk); dcmtk here cannot convert ISO 2022 Japanese. */
async function dcmtkHeader(file: string): Promise<Header> {
  const japanese = file.includes('iso2022');
  const out = await sh(`dcmdump -q ${japanese ? '' : '+U8'} -s ${Object.values(TAGS).map((t) => `+P ${t}`).join(' ')} '${file}'`, path.dirname(file));
  const value = (tag: string) => {
    const text = new RegExp(`^\\(${tag}\\) \\S\\S \\[(.*?)\\]`, 'm').exec(out)?.[1]?.trim();
    return text === undefined || text === '' ? null : text;
  };
  const header = Object.fromEntries(Object.entries(TAGS).map(([k, tag]) => [k, value(tag)])) as Header;
  if (japanese) header.name = 'Yamada^Tarou=山田^太郎=やまだ^たろう';
  return header;
}

interface Upload {
  name: string;
  members: string[];
}

/**
 * The oracle: studies built in plain code from dcmtk's reading of each live upload's members,
 * with the rules the API documents (distinct SOP Instance UIDs, least value when they differ).
 */
function expectedStudies(uploads: { id: number; name: string; headers: Header[] }[]): TProjectStudy[] {
  const studies = new Map<string, { rows: { h: Header; fileId: number; file: string }[] }>();
  for (const u of uploads) {
    for (const h of u.headers) {
      if (h.study === null || h.sop === null) continue;
      const entry = studies.get(h.study) ?? { rows: [] };
      entry.rows.push({ h, fileId: u.id, file: u.name });
      studies.set(h.study, entry);
    }
  }
  const least = (values: (string | null)[]) => values.filter((v): v is string => v !== null).sort()[0] ?? null;
  return [...studies.entries()].map(([uid, { rows }]) => {
    const seriesUids = [...new Set(rows.map((r) => r.h.series!))].sort();
    const series = seriesUids.map((s) => {
      const own = rows.filter((r) => r.h.series === s);
      return {
        series_instance_uid: s,
        modality: least(own.map((r) => r.h.modality)),
        series_description: least(own.map((r) => r.h.seriesDescription)),
        instances: new Set(own.map((r) => r.h.sop)).size,
      };
    });
    const sources = [...new Map(rows.map((r) => [r.fileId, { file_id: r.fileId, file: r.file }])).values()].sort((a, b) => a.file_id - b.file_id);
    return {
      study_instance_uid: uid,
      patient_name: formatPersonName(least(rows.map((r) => r.h.name))),
      patient_id: least(rows.map((r) => r.h.id)),
      study_date: least(rows.map((r) => r.h.date)),
      study_description: least(rows.map((r) => r.h.description)),
      modalities: [...new Set(series.map((s) => s.modality).filter((m): m is string => m !== null))].sort(),
      series,
      instances: new Set(rows.map((r) => r.h.sop)).size,
      sources,
    };
  });
}

/** The documented order: by the key (text without case), studies without it last, ties by UID. */
function sortStudies(studies: TProjectStudy[], names: Map<string, string | null>, sort: TStudySort, order: 'asc' | 'desc'): string[] {
  const key = (s: TProjectStudy): string | number | null => {
    if (sort === 'instances') return s.instances;
    if (sort === 'study_date') return s.study_date;
    if (sort === 'study_description') return s.study_description?.toLowerCase() ?? null;
    return names.get(s.study_instance_uid)?.toLowerCase() ?? null;
  };
  const sign = order === 'asc' ? 1 : -1;
  return [...studies]
    .sort((a, b) => {
      const [ka, kb] = [key(a), key(b)];
      if (ka === null || kb === null) {
        if (ka !== kb) return ka === null ? 1 : -1;
      } else if (ka !== kb) return (ka < kb ? -1 : 1) * sign;
      return (a.study_instance_uid < b.study_instance_uid ? -1 : 1) * sign;
    })
    .map((s) => s.study_instance_uid);
}

describe.each(dialects())("a project's studies on %s", (dialect) => {
  let server: TestServer;
  let scratch: string;
  let company: CompanyRow;
  let project: ProjectRow;
  let token: string;
  let expected: TProjectStudy[];
  /** PatientName as written, per study: what the patient_name sort orders by. */
  const rawNames = new Map<string, string | null>();
  const headers = new Map<string, Header>();
  let mrStudy: string;

  const studies = (query = '', as = token, id = project.id) => call(`${server.api}/study-petitions/${id}/studies${query}`, { token: as });

  async function uploadAll(target: ProjectRow, uploads: Upload[]): Promise<{ id: number; name: string; headers: Header[] }[]> {
    const done = [];
    for (const u of uploads) {
      const members = Object.fromEntries(u.members.map((m) => [m, fs.readFileSync(path.join(scratch, m))]));
      const data = u.name.endsWith('.zip')
        ? makeArchive(scratch, members, `bsdtar --format zip -cf out.zip ${u.members.join(' ')}`, 'out.zip')
        : members[u.members[0]!]!;
      const answer = await upload(server.api, token, { name: u.name, data }, target.id);
      expect(answer.status).toBe(201);
      done.push({ id: answer.body.data[0].id as number, name: u.name, headers: u.members.map((m) => headers.get(m)!) });
    }
    for (let i = 0; i < 600; i += 1) {
      const files = (await call(`${server.api}/study-petitions-files?study_petition_id=${target.id}`, { token })).body.data as { processing: { status: string } }[];
      if (files.every((f) => f.processing.status === 'ready')) return done;
      expect(files.map((f) => f.processing.status)).not.toContain('failed');
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('processing did not finish');
  }

  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { jobs: true });
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-studies-'));
    for (const name of fs.readdirSync(DICOM_DIR).filter((n) => /^s\d\d_.*\.dcm$|^s15_CR_6154$/.test(n))) {
      fs.copyFileSync(path.join(DICOM_DIR, name), path.join(scratch, name));
    }
    // More instances and a second series, given new UIDs by dcmtk: a study of 6 instances in two
    // series (CT and OT), one of 3 and one of 2, the rest of 1.
    await sh(
      [
        'chmod u+w *',
        'cp s03_CT_series5N_2062.dcm second-series.dcm && dcmodify -nb -gse -gin -m "(0008,0060)=OT" -m "(0008,103e)=Second series" second-series.dcm',
        'cp s15_CR_6154 cr-b.dcm && dcmodify -nb -gin cr-b.dcm',
        'cp s15_CR_6154 cr-c.dcm && dcmodify -nb -gin cr-c.dcm',
        'cp s21_RTDOSE_implicit.dcm rtdose-b.dcm && dcmodify -nb -gin rtdose-b.dcm',
      ].join(' && '),
      scratch,
    );
    for (const name of fs.readdirSync(scratch)) headers.set(name, await dcmtkHeader(path.join(scratch, name)));
    for (const h of headers.values()) if (h.study !== null && h.sop !== null) rawNames.set(h.study, h.name);
    mrStudy = headers.get('s10_MR_small_implicit.dcm')!.study!;

    company = await makeCompany(server.services);
    const user = await makeUser(server.services, { company });
    token = await login(server.api, user.username, PASSWORD);
    project = await makeProject(server.services, company);
    const live = await uploadAll(project, [
      // s05 is in both zips and the CR fixture in three uploads: each instance counts once.
      { name: 'first.zip', members: ['s03_CT_series5N_2062.dcm', 's04_CT_series5N_2392.dcm', 's05_CT_series5N_2693.dcm', 's15_CR_6154', 'cr-b.dcm'] },
      { name: 'second.zip', members: ['s05_CT_series5N_2693.dcm', 's06_CT_series5N_3023.dcm', 's07_CT_series5N_3353.dcm', 'second-series.dcm', 'cr-c.dcm'] },
      {
        name: 'various.zip',
        members: ['s01_CT_small.dcm', 's13_US_rgb_bigendian.dcm', 's21_RTDOSE_implicit.dcm', 'rtdose-b.dcm', 's36_OT_charset_utf8_chinese.dcm', 's37_OT_charset_iso2022_japanese.dcm', 's38_OT_charset_arabic_iso_ir127.dcm'],
      },
      { name: 'cr-again.dcm', members: ['s15_CR_6154'] },
    ]);
    // A DICOM file without a SOP Instance UID and one that is not DICOM: neither is an instance.
    await uploadAll(project, [{ name: 'no-sop.zip', members: ['s39_meta_missing_transfer_syntax.dcm'] }]);
    expected = expectedStudies(live);
    // Another project of the same company, with a study of its own.
    const elsewhere = await makeProject(server.services, company, 'Elsewhere');
    await uploadAll(elsewhere, [{ name: 'mr.dcm', members: ['s10_MR_small_implicit.dcm'] }]);
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('lists every study of the live uploads as dcmtk reads them, each instance once, newest first', async () => {
    const answer = await studies('?per_page=500');
    expect(answer.status).toBe(200);
    const body = ZProjectStudies.parse(answer.body);
    expect(body.page).toEqual({ page: 1, per_page: 500, total: 8 });
    expect(body.data).toEqual(sortStudies(expected, rawNames, 'study_date', 'desc').map((uid) => expected.find((s) => s.study_instance_uid === uid)));
    expect(body.data.map((s) => s.study_instance_uid)).not.toContain(mrStudy);

    const ct = body.data.find((s) => s.study_instance_uid === headers.get('s03_CT_series5N_2062.dcm')!.study)!;
    expect(ct).toMatchObject({ patient_name: 'Doe, Peter', patient_id: '98890234', study_date: '20010101', instances: 6, modalities: ['CT', 'OT'] });
    expect(ct.series.map((s) => s.instances).sort()).toEqual([1, 5]);
    expect(ct.sources.map((s) => s.file)).toEqual(['first.zip', 'second.zip']);
    const cr = body.data.find((s) => s.study_instance_uid === headers.get('s15_CR_6154')!.study)!;
    expect(cr).toMatchObject({ instances: 3, study_description: 'XR C Spine Comp Min 4 Views' });
    expect(cr.sources.map((s) => s.file)).toEqual(['first.zip', 'second.zip', 'cr-again.dcm']);
    const japanese = body.data.find((s) => s.study_instance_uid === headers.get('s37_OT_charset_iso2022_japanese.dcm')!.study)!;
    expect(japanese.patient_name).toBe('Yamada, Tarou (山田 太郎)');
  });

  it.each(STUDY_SORT_KEYS.flatMap((sort) => (['asc', 'desc'] as const).map((order) => [sort, order] as const)))(
    'sorts by %s %s and pages through it without overlap or gap, with the total',
    async (sort, order) => {
      const order_ = sortStudies(expected, rawNames, sort, order);
      const seen: string[] = [];
      for (const page of [1, 2, 3]) {
        const answer = await studies(`?sort=${sort}&order=${order}&page=${page}&per_page=3`);
        expect(answer.status).toBe(200);
        expect(answer.body.page).toEqual({ page, per_page: 3, total: 8 });
        seen.push(...answer.body.data.map((s: TProjectStudy) => s.study_instance_uid));
      }
      expect(seen).toEqual(order_);
      expect((await studies(`?sort=${sort}&order=${order}&page=4&per_page=3`)).body).toEqual({ data: [], page: { page: 4, per_page: 3, total: 8 } });
    },
  );

  it('searches what a study shows: patient name (as shown or as written) and ID, description and UID, wildcards literally', async () => {
    const found = async (q: string) => {
      const answer = await studies(`?q=${encodeURIComponent(q)}&sort=instances&order=desc`);
      expect(answer.status).toBe(200);
      expect(answer.body.page.total).toBe(answer.body.data.length);
      return answer.body.data.map((s: TProjectStudy) => s.study_instance_uid);
    };
    const ct = headers.get('s03_CT_series5N_2062.dcm')!.study;
    const cr = headers.get('s15_CR_6154')!.study;
    const rtdose = headers.get('s21_RTDOSE_implicit.dcm')!.study!;
    expect(await found('Doe, Peter')).toEqual([ct]);
    expect(await found('doe^peter')).toEqual([ct]);
    expect(await found('DOE')).toEqual([ct, cr]);
    expect(await found('98890234')).toEqual([ct]);
    // A series' description is inside the study, not on its row: not searched.
    expect(await found('second SERIES')).toEqual([]);
    expect(await found('spine comp')).toEqual([cr]);
    expect(await found(rtdose.slice(-9))).toEqual([rtdose]);
    expect(await found('山田')).toEqual([headers.get('s37_OT_charset_iso2022_japanese.dcm')!.study]);
    // Every instance of a matching study still counts.
    expect((await studies('?q=peter')).body.data[0].instances).toBe(6);
    for (const literal of ['%', '_', '\\', '1.2.%.9']) expect([literal, await found(literal)]).toEqual([literal, []]);
    expect(await found('1.2.')).toEqual(expect.arrayContaining([rtdose]));
  });

  it('drops a study when the only upload holding it is deleted, and keeps shared instances counted once', async () => {
    const [mr] = await uploadAll(project, [{ name: 'mr.dcm', members: ['s10_MR_small_implicit.dcm'] }]);
    const before = await studies('?per_page=500');
    expect(before.body.page.total).toBe(9);
    expect(before.body.data.map((s: TProjectStudy) => s.study_instance_uid)).toContain(mrStudy);
    expect((await call(`${server.api}/study-petitions-files-delete/${mr!.id}`, { method: 'PUT', token })).status).toBe(200);
    const after = await studies('?per_page=500');
    expect(after.body.page.total).toBe(8);
    expect(after.body.data.map((s: TProjectStudy) => s.study_instance_uid)).not.toContain(mrStudy);

    // Deleting one of two zips that share s05 leaves what the other holds, s05 included.
    const copy = await makeProject(server.services, company, 'Copy');
    const [first, second] = await uploadAll(copy, [
      { name: 'first.zip', members: ['s03_CT_series5N_2062.dcm', 's04_CT_series5N_2392.dcm', 's05_CT_series5N_2693.dcm'] },
      { name: 'second.zip', members: ['s05_CT_series5N_2693.dcm', 's06_CT_series5N_3023.dcm'] },
    ]);
    expect((await studies('', token, copy.id)).body.data[0]).toMatchObject({ instances: 4, sources: [{ file_id: first!.id }, { file_id: second!.id }] });
    expect((await call(`${server.api}/study-petitions-files-delete/${first!.id}`, { method: 'PUT', token })).status).toBe(200);
    expect((await studies('', token, copy.id)).body.data[0]).toMatchObject({ instances: 2, sources: [{ file_id: second!.id, file: 'second.zip' }] });
  });

  it("answers another company's project 404 like a missing one, and lets a SysUser of any company read it", async () => {
    const outsider = await makeUser(server.services, { company: await makeCompany(server.services), role: ROLES.CompanyAdmin });
    const outsiderToken = await login(server.api, outsider.username, PASSWORD);
    expect(await studies('', outsiderToken)).toMatchObject({ status: 404, body: { message: 'Project not found' } });
    expect(await studies('', token, 2_000_000)).toMatchObject({ status: 404, body: { message: 'Project not found' } });
    expect(await studies('', token, 'abc' as unknown as number)).toMatchObject({ status: 404 });
    for (const role of [ROLES.SysUser, ROLES.SysAdmin]) {
      const staff = await makeUser(server.services, { company: await makeCompany(server.services), role });
      const answer = await studies('?sort=instances&order=desc&per_page=2', await login(server.api, staff.username, PASSWORD));
      expect(answer.status).toBe(200);
      expect(answer.body.page.total).toBe(8);
      expect(answer.body.data.map((s: TProjectStudy) => s.instances)).toEqual([6, 3]);
    }
    const deleted = await makeProject(server.services, company, 'Gone');
    expect((await call(`${server.api}/study-petitions-delete/${deleted.id}`, { method: 'PUT', token })).status).toBe(200);
    expect(await studies('', token, deleted.id)).toMatchObject({ status: 404 });
    expect((await call(`${server.api}/study-petitions/${project.id}/studies`)).status).toBe(401);
  });

  it('refuses bad parameters with 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['?sort=date', 'sort: must be one of study_date, study_description, patient_name, instances'],
      ['?order=newest', 'order: must be asc or desc'],
      ['?per_page=501', 'per_page: must be a whole number from 1 to 500'],
      ['?per_page=-1', 'per_page: must be a whole number from 1 to 500'],
      ['?page=x', 'page: must be a whole number from 1'],
      ['?status=ready', 'Unknown field: status'],
    ];
    for (const [query, message] of cases) expect([query, await studies(query)]).toMatchObject([query, { status: 400, body: { message } }]);
  });
});
