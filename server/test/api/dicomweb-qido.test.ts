// QIDO-RS (issue 34) through a listening server with its job runner, on both databases: files of the
// shared corpus uploaded with the upload API, then searched with dicomweb-client (a DICOMweb client
// nobody here wrote; it speaks XMLHttpRequest, which xhr2 provides in Node).
import { createRequire } from 'node:module';
import { ROLES } from '@portal/contract';
import dicomweb from 'dicomweb-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { basicProject } from '../deidentification-fixtures.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { dicomFixture, upload, waitProcessed } from '../uploads.js';

(globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest = createRequire(import.meta.url)('xhr2');

const CT1 = { study: '1.3.6.1.4.1.5962.1.2.1.20040119072730.12322', name: 'CompressedSamples^CT1' };
const DOE = {
  study: '1.3.6.1.4.1.5962.1.1.0.0.0.1194734704.16302.0.1',
  series: '1.3.6.1.4.1.5962.1.1.0.0.0.1194734704.16302.0.6',
  sops: ['1.3.6.1.4.1.5962.1.1.0.0.0.1194734704.16302.0.12', '1.3.6.1.4.1.5962.1.1.0.0.0.1194734704.16302.0.13', '1.3.6.1.4.1.5962.1.1.0.0.0.1194734704.16302.0.14'],
};
const MR_STUDY = '1.3.6.1.4.1.5962.1.2.4.20040826185059.5457';

type Json = Record<string, { vr: string; Value?: unknown[] }>;
const value = (object: Json, tag: string) => object[tag]?.Value?.[0];
/** dicomweb-client's searches, as they behave. */
interface SearchOptions {
  studyInstanceUID?: string;
  seriesInstanceUID?: string;
  queryParams?: Record<string, string>;
}
interface Qido {
  searchForStudies(options?: SearchOptions): Promise<Json[]>;
  searchForSeries(options?: SearchOptions): Promise<Json[]>;
  searchForInstances(options?: SearchOptions): Promise<Json[]>;
}
const values = (objects: Json[], tag: string) => objects.map((o) => value(o, tag));

describe.each(dialects())('QIDO-RS (%s)', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  let projectId: number;

  const client = (id: number, bearer?: string): Qido => {
    const options = {
      url: `${server.api}/study-petitions/${id}/dicomweb`,
      headers: bearer ? { Authorization: `Bearer ${bearer}` } : {},
      // The refusals are asserted here; the client's own logging of them is noise.
      errorInterceptor: () => undefined,
    };
    // The package's declarations say its searches answer arrays; they answer promises of them.
    return new dicomweb.api.DICOMwebClient(options as unknown as ConstructorParameters<typeof dicomweb.api.DICOMwebClient>[0]) as unknown as Qido;
  };
  /** The status a client's search failed with (dicomweb-client rejects with it). */
  const failure = async (search: Promise<unknown>) => {
    const error = await search.then(
      () => null,
      (e: { status: number; response: unknown }) => e,
    );
    return error?.status;
  };

  async function put(id: number, name: string, bearer = token): Promise<number> {
    const answer = await upload(server.api, bearer, { name: `${name}-${Math.random()}.dcm`, data: dicomFixture(name) }, id);
    expect(answer.status).toBe(201);
    const fileId = answer.body.data[0].id as number;
    expect((await waitProcessed(server.api, bearer, id, fileId)).processing.status).toBe('ready');
    return fileId;
  }

  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { jobs: true });
    company = await makeCompany(server.services);
    const user = await makeUser(server.services, { company });
    token = await login(server.api, user.username, PASSWORD);
    projectId = (await makeProject(server.services, company)).id;
    for (const name of ['s01_CT_small.dcm', 's03_CT_series5N_2062.dcm', 's04_CT_series5N_2392.dcm', 's05_CT_series5N_2693.dcm', 's05_CT_series5N_2693.dcm']) {
      await put(projectId, name);
    }
    // The MR study's only upload is deleted: its instance is never answered.
    const mr = await put(projectId, 's10_MR_small_implicit.dcm');
    expect((await call(`${server.api}/study-petitions-files-delete/${mr}`, { method: 'PUT', token })).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  it('answers the studies with their counts, an instance in two uploads once, a deleted upload’s never', async () => {
    const studies = (await client(projectId, token).searchForStudies());
    expect(values(studies, '0020000D').sort()).toEqual([DOE.study, CT1.study].sort());
    const doe = studies.find((s) => value(s, '0020000D') === DOE.study)!;
    expect(doe['00100010']).toEqual({ vr: 'PN', Value: [{ Alphabetic: 'Doe^Peter' }] });
    expect(value(doe, '00080020')).toBe('20010101');
    expect(value(doe, '00080050')).toBe('2');
    expect(value(doe, '00201206')).toBe(1);
    expect(value(doe, '00201208')).toBe(3);
    expect(doe['00080061']).toEqual({ vr: 'CS', Value: ['CT'] });
    expect(value(doe, '00081190')).toBe(`${server.api}/study-petitions/${projectId}/dicomweb/studies/${DOE.study}`);
    // An attribute the instances leave empty is there, without a value.
    expect(studies.find((s) => value(s, '0020000D') === CT1.study)!['00080050']).toEqual({ vr: 'SH' });
    expect(await client(projectId, token).searchForStudies({ queryParams: { StudyInstanceUID: MR_STUDY } })).toEqual([]);
  });

  it('answers a study’s series and a series’ instances, ordered by number, paged by limit and offset', async () => {
    const series = (await client(projectId, token).searchForSeries({ studyInstanceUID: DOE.study }));
    expect(values(series, '0020000E')).toEqual([DOE.series]);
    expect(value(series[0]!, '00201209')).toBe(3);
    expect(value(series[0]!, '00200011')).toBe(5);
    expect(value(series[0]!, '00080060')).toBe('CT');
    const instances = (await client(projectId, token).searchForInstances({ studyInstanceUID: DOE.study, seriesInstanceUID: DOE.series }));
    expect(values(instances, '00080018')).toEqual(DOE.sops);
    expect(values(instances, '00200013')).toEqual([6, 7, 8]);
    expect(value(instances[0]!, '00081190')).toBe(`${server.api}/study-petitions/${projectId}/dicomweb/studies/${DOE.study}/series/${DOE.series}/instances/${DOE.sops[0]}`);
    const page = (await client(projectId, token).searchForInstances({ studyInstanceUID: DOE.study, queryParams: { limit: '1', offset: '1' } }));
    expect(values(page, '00080018')).toEqual([DOE.sops[1]]);
    const all = (await client(projectId, token).searchForInstances({ queryParams: { limit: '10', offset: '0' } }));
    expect(all).toHaveLength(4);
  });

  it('matches UID lists, wildcard names without case, date ranges, modalities and keys given by tag', async () => {
    const uids = async (queryParams: Record<string, string>) =>
      values((await client(projectId, token).searchForStudies({ queryParams })), '0020000D').sort();
    expect(await uids({ StudyInstanceUID: `${DOE.study},${MR_STUDY}` })).toEqual([DOE.study]);
    expect(await uids({ StudyInstanceUID: `${DOE.study}\\${CT1.study}` })).toEqual([DOE.study, CT1.study].sort());
    expect(await uids({ PatientName: 'doe*' })).toEqual([DOE.study]);
    expect(await uids({ PatientName: '*SAMPLES?CT1' })).toEqual([CT1.study]);
    expect(await uids({ PatientName: 'Doe' })).toEqual([]);
    expect(await uids({ '00100010': 'doe^peter' })).toEqual([DOE.study]);
    expect(await uids({ StudyDate: '20040101-20041231' })).toEqual([CT1.study]);
    expect(await uids({ StudyDate: '-20021231' })).toEqual([DOE.study]);
    expect(await uids({ StudyDate: '20010101-' })).toEqual([DOE.study, CT1.study].sort());
    expect(await uids({ StudyDate: '20010101' })).toEqual([DOE.study]);
    expect(await uids({ ModalitiesInStudy: 'MR,CT', fuzzymatching: 'true' })).toEqual([DOE.study, CT1.study].sort());
    expect(await uids({ ModalitiesInStudy: 'MR' })).toEqual([]);
    const series = (await client(projectId, token).searchForSeries({ queryParams: { SeriesNumber: '5' } }));
    expect(values(series, '0020000E')).toEqual([DOE.series]);
  });

  it('answers includefield’s attributes beside the defaults, or all of them', async () => {
    const [without] = (await client(projectId, token).searchForSeries({ studyInstanceUID: CT1.study }));
    expect(without!['00100010']).toBeUndefined();
    const [named] = (await client(projectId, token).searchForSeries({ studyInstanceUID: CT1.study, queryParams: { includefield: 'PatientName,00081030' } }));
    expect(named!['00100010']).toEqual({ vr: 'PN', Value: [{ Alphabetic: CT1.name }] });
    expect(named!['00081030']).toBeDefined();
    const [all] = (await client(projectId, token).searchForInstances({ studyInstanceUID: CT1.study, queryParams: { includefield: 'all' } }));
    expect(value(all!, '00100010')).toEqual({ Alphabetic: CT1.name });
    expect(value(all!, '00280010')).toBe(128);
  });

  it('answers a de-identifying project’s pseudonyms, never the name uploaded', async () => {
    const admin = await makeUser(server.services, { company: await makeCompany(server.services), role: ROLES.SysAdmin });
    const adminToken = await login(server.api, admin.username, PASSWORD);
    const basic = await basicProject(server, company, { admin: adminToken, user: token });
    const fileId = await put(basic.id, 's01_CT_small.dcm');
    const entries = (await call(`${server.api}/study-petitions-files/${fileId}/contents`, { token })).body.data.entries;
    const kept = entries[0].dicom as { patient_name: string; study_instance_uid: string };
    expect(kept.patient_name).not.toBe(CT1.name);
    const studies = (await client(basic.id, token).searchForStudies({ queryParams: { includefield: 'all' } }));
    expect(values(studies, '0020000D')).toEqual([kept.study_instance_uid]);
    expect(value(studies[0]!, '00100010')).toEqual({ Alphabetic: kept.patient_name });
    expect(JSON.stringify(studies)).not.toContain('CompressedSamples');
  });

  it('keeps to the project’s tenant and roles: foreign or unknown 404, no session 401, a read-only role may search', async () => {
    const outsider = await makeUser(server.services, { company: await makeCompany(server.services), role: ROLES.CompanyAdmin });
    expect(await failure(client(projectId, await login(server.api, outsider.username, PASSWORD)).searchForStudies())).toBe(404);
    expect(await failure(client(999_999, token).searchForStudies())).toBe(404);
    expect(await failure(client(projectId).searchForStudies())).toBe(401);
    const reader = await makeUser(server.services, { company: await makeCompany(server.services), role: ROLES.SysUser });
    const seen = (await client(projectId, await login(server.api, reader.username, PASSWORD)).searchForStudies());
    expect(seen).toHaveLength(2);
    const colleague = await makeUser(server.services, { company, role: ROLES.User });
    expect(await client(projectId, await login(server.api, colleague.username, PASSWORD)).searchForStudies()).toHaveLength(2);
  });

  it('refuses a key it cannot match (400, in words) and an Accept it cannot answer (406)', async () => {
    expect(await failure(client(projectId, token).searchForStudies({ queryParams: { PatientWeight: '70' } }))).toBe(400);
    const search = `${server.api}/study-petitions/${projectId}/dicomweb/studies`;
    const unknown = await call(`${search}?PatientWeight=70`, { token });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('PatientWeight');
    expect((await call(`${search}?StudyDate=2001-01-01`, { token })).body.message).toContain('YYYYMMDD');
    expect((await call(`${search}?NumberOfStudyRelatedInstances=3`, { token })).status).toBe(400);
    expect((await call(`${search}?limit=many`, { token })).status).toBe(400);
    expect((await call(search, { token, headers: { accept: 'application/dicom' } })).status).toBe(406);
    const plain = await call(search, { token, headers: { accept: 'application/json' } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toContain('application/dicom+json');
    expect((await call(`${search}?PatientName=nobody`, { token })).body).toEqual([]);
  });
});
