// WADO-RS (issue 34) through a listening server with its job runner, on both databases, driven by
// dicomweb-client (a DICOMweb client nobody here wrote; XMLHttpRequest from xhr2): files of the
// shared corpus (copies in test/fixtures/dicom, see its NOTICE) stored with STOW-RS, found with
// QIDO-RS, then retrieved: instances byte for byte, frames as dcmjs reads them from the originals,
// metadata whose BulkDataURIs resolve; and the tenant and role rules.
import { createRequire } from 'node:module';
import { ROLES } from '@portal/contract';
import dcmjs from 'dcmjs';
import dicomweb from 'dicomweb-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { dicomFixture, listFiles, sha256, waitProcessed } from '../uploads.js';

(globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest = createRequire(import.meta.url)('xhr2');

/** The corpus files stored, each with its UIDs, stored transfer syntax and frame count (dcmdump). */
const CORPUS = {
  ct: { file: 's01_CT_small.dcm', syntax: '1.2.840.10008.1.2.1', frames: 1, study: '1.3.6.1.4.1.5962.1.2.1.20040119072730.12322', series: '1.3.6.1.4.1.5962.1.3.1.1.20040119072730.12322', sop: '1.3.6.1.4.1.5962.1.1.1.1.1.20040119072730.12322' },
  mr: { file: 's10_MR_small_implicit.dcm', syntax: '1.2.840.10008.1.2', frames: 1, study: '1.3.6.1.4.1.5962.1.2.4.20040826185059.5457', series: '1.3.6.1.4.1.5962.1.3.4.1.20040826185059.5457', sop: '1.3.6.1.4.1.5962.1.1.4.1.1.20040826185059.5457' },
  us: { file: 's14_US_multiframe_jpeg_baseline_ybr.dcm', syntax: '1.2.840.10008.1.2.4.50', frames: 30, study: '1.2.840.114340.3.8251017118051.1.20160503.120850.2171', series: '1.2.840.114340.3.8251017118051.2.20160503.120850.2171', sop: '1.2.840.114340.3.8251017118051.3.20160503.121539.16117.4' },
  j2k: { file: 's02_CT_693_J2KI.dcm', syntax: '1.2.840.10008.1.2.4.91', frames: 1, study: '1.2.276.0.7230010.3.1.2.296485376.1.1521713414.1800996', series: '1.2.276.0.7230010.3.1.3.296485376.1.1521713419.1802493', sop: '1.2.826.0.1.3680043.2.1143.6234428899086018376578420169896863246' },
  jls: { file: 's12_MR_enhanced_jpegls_10frames.dcm', syntax: '1.2.840.10008.1.2.4.80', frames: 10, study: '1.2.826.0.1.3680043.2.1143.3365540476747857567072393009509418480', series: '1.2.826.0.1.3680043.2.1143.3712364435022872412969836992152438492', sop: '1.2.826.0.1.3680043.2.1143.6455556726214900995651753669640998622' },
};
type Item = (typeof CORPUS)[keyof typeof CORPUS];
const ITEMS = Object.values(CORPUS);

type Json = Record<string, { vr: string; Value?: unknown[]; BulkDataURI?: string }>;
interface Uids {
  studyInstanceUID: string;
  seriesInstanceUID?: string;
  sopInstanceUID?: string;
}
interface MediaType {
  mediaType: string;
  transferSyntaxUID?: string;
}
/** dicomweb-client's calls used here, as they behave (its declarations say less). */
interface Client {
  storeInstances(options: { datasets: ArrayBuffer[] }): Promise<unknown>;
  searchForInstances(options?: { studyInstanceUID?: string; queryParams?: Record<string, string> }): Promise<Json[]>;
  retrieveStudy(options: Uids): Promise<ArrayBuffer[]>;
  retrieveSeries(options: Uids): Promise<ArrayBuffer[]>;
  retrieveInstance(options: Uids): Promise<ArrayBuffer>;
  retrieveStudyMetadata(options: Uids): Promise<Json[]>;
  retrieveSeriesMetadata(options: Uids): Promise<Json[]>;
  retrieveInstanceMetadata(options: Uids): Promise<Json[]>;
  retrieveInstanceFrames(options: Uids & { frameNumbers: number[]; mediaTypes?: MediaType[] }): Promise<ArrayBuffer[]>;
  retrieveBulkData(options: { BulkDataURI: string; mediaTypes?: MediaType[] }): Promise<ArrayBuffer[]>;
}

const AS_STORED: MediaType[] = [{ mediaType: 'application/octet-stream', transferSyntaxUID: '*' }];
const uidsOf = (item: Item): Required<Uids> => ({ studyInstanceUID: item.study, seriesInstanceUID: item.series, sopInstanceUID: item.sop });
const arrayBuffer = (bytes: Buffer) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
const hex = (data: ArrayBuffer | Uint8Array) => sha256(Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data));

dcmjs.log.setLevel('error');
/** Each frame's bytes as dcmjs reads them from the original file (an independent reader). */
function framesByDcmjs(file: string): ArrayBuffer[] {
  const read = dcmjs.data.DicomMessage.readFile(arrayBuffer(dicomFixture(file)));
  return read.dict['7FE00010']!.Value as ArrayBuffer[];
}

describe.each(dialects())('WADO-RS (%s)', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  let token: string;
  let projectId: number;
  /** The store answer of the corpus with one part that is not DICOM. */
  let stored: Record<string, { Value: Json[] }>;
  /** Accounts of each role: the project's company's User and CompanyAdmin, the operator's SysUser and SysAdmin, another company's admin. */
  const as: Record<'user' | 'companyAdmin' | 'sysUser' | 'sysAdmin' | 'stranger', string> = { user: '', companyAdmin: '', sysUser: '', sysAdmin: '', stranger: '' };

  const client = (id: number, bearer?: string): Client => {
    const options = {
      url: `${server.api}/study-petitions/${id}/dicomweb`,
      headers: bearer ? { Authorization: `Bearer ${bearer}` } : {},
      // The refusals are asserted here; the client's own logging of them is noise.
      errorInterceptor: () => undefined,
      verbose: false,
    };
    return new dicomweb.api.DICOMwebClient(options as unknown as ConstructorParameters<typeof dicomweb.api.DICOMwebClient>[0]) as unknown as Client;
  };
  /** The status a client's call failed with (dicomweb-client rejects with it). */
  const failure = async (request: Promise<unknown>) =>
    (
      await request.then(
        () => null,
        (e: { status: number }) => e,
      )
    )?.status;
  const wadoUrl = (item: Item, tail = '') => `${server.api}/study-petitions/${projectId}/dicomweb/studies/${item.study}/series/${item.series}/instances/${item.sop}${tail}`;

  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { jobs: true });
    company = await makeCompany(server.services);
    const other = await makeCompany(server.services);
    const account = async (role: (typeof ROLES)[keyof typeof ROLES], of: CompanyRow) => login(server.api, (await makeUser(server.services, { company: of, role })).username, PASSWORD);
    as.user = token = await account(ROLES.User, company);
    as.companyAdmin = await account(ROLES.CompanyAdmin, company);
    as.sysUser = await account(ROLES.SysUser, other);
    as.sysAdmin = await account(ROLES.SysAdmin, other);
    as.stranger = await account(ROLES.CompanyAdmin, other);
    projectId = (await makeProject(server.services, company)).id;
    // Stored with STOW-RS by the client; a part that is not DICOM among them is refused with its reason.
    stored = JSON.parse(String(await client(projectId, token).storeInstances({ datasets: [...ITEMS.map((i) => arrayBuffer(dicomFixture(i.file))), arrayBuffer(Buffer.from('not DICOM at all'))] })));
    const rows = (await listFiles(server.api, token, projectId)).body.data as { id: number }[];
    expect(rows).toHaveLength(1);
    expect((await waitProcessed(server.api, token, projectId, rows[0]!.id)).processing.status).toBe('ready');
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  it('stores the corpus with STOW, refuses the part that is not DICOM with its reason, and QIDO finds each instance', async () => {
    expect(stored['00081199']!.Value.map((i) => i['00081155']!.Value![0])).toEqual(ITEMS.map((i) => i.sop));
    expect(stored['00081198']!.Value.map((i) => i['0040A160']!.Value![0])).toEqual([`Part ${ITEMS.length + 1} was not kept: it is not a DICOM file`]);
    const boundary = 'wado-test-boundary';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Type: application/dicom\r\n\r\nnot DICOM either\r\n--${boundary}\r\nContent-Type: application/dicom\r\n\r\n`),
      dicomFixture(CORPUS.ct.file),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const answer = await fetch(`${server.api}/study-petitions/${projectId}/dicomweb/studies`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/related; type="application/dicom"; boundary=${boundary}` },
      body,
    });
    expect(answer.status).toBe(202);
    const json = (await answer.json()) as Record<string, { Value: Json[] }>;
    expect(json['00081198']!.Value[0]!['0040A160']!.Value![0]).toMatch(/^Part 1 was not kept: it is not a DICOM file/);
    // The store answer's RetrieveURL is the one QIDO answers, and WADO retrieves.
    const referenced = json['00081199']!.Value[0]!['00081190']!.Value![0];
    expect(referenced).toBe(wadoUrl(CORPUS.ct));

    for (const item of ITEMS) {
      const found = await client(projectId, token).searchForInstances({ studyInstanceUID: item.study });
      expect(found.map((o) => o['00080018']!.Value![0])).toEqual([item.sop]);
      expect(found[0]!['00081190']!.Value![0]).toBe(wadoUrl(item));
    }
  });

  it('retrieves each instance, series and study byte for byte as stored', async () => {
    const api = client(projectId, token);
    for (const item of ITEMS) {
      const original = sha256(dicomFixture(item.file));
      expect(hex(await api.retrieveInstance(uidsOf(item)))).toBe(original);
      expect((await api.retrieveSeries(uidsOf(item))).map(hex)).toEqual([original]);
      expect((await api.retrieveStudy({ studyInstanceUID: item.study })).map(hex)).toEqual([original]);
    }
    const raw = await fetch(wadoUrl(CORPUS.us), { headers: { authorization: `Bearer ${token}`, accept: 'multipart/related; type="application/dicom"; transfer-syntax=*' } });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toMatch(/^multipart\/related; type="application\/dicom"; boundary=/);
    const text = Buffer.from(await raw.arrayBuffer()).toString('latin1');
    expect(text).toContain(`Content-Location: ${wadoUrl(CORPUS.us)}`);
    expect(text).toContain(`Content-Type: application/dicom; transfer-syntax=${CORPUS.us.syntax}`);
  });

  it('retrieves frames in the stored transfer syntax, equal to the frames dcmjs reads from the originals', async () => {
    const api = client(projectId, token);
    for (const item of ITEMS) {
      const expected = framesByDcmjs(item.file);
      expect(expected).toHaveLength(item.frames);
      const asked = item.frames === 1 ? [1] : [1, 2, item.frames];
      const frames = await api.retrieveInstanceFrames({ ...uidsOf(item), frameNumbers: asked, mediaTypes: AS_STORED });
      expect(frames.map(hex)).toEqual(asked.map((n) => hex(expected[n - 1]!)));
    }
    // As OHIF asks, each part typed by its stored transfer syntax.
    const ohif = await fetch(wadoUrl(CORPUS.us, '/frames/3'), { headers: { authorization: `Bearer ${token}`, accept: 'multipart/related; type=application/octet-stream; transfer-syntax=*' } });
    expect(ohif.status).toBe(200);
    expect(ohif.headers.get('content-type')).toMatch(/^multipart\/related; type="image\/jpeg"; transfer-syntax=1\.2\.840\.10008\.1\.2\.4\.50; boundary=/);
    expect(Buffer.from(await ohif.arrayBuffer()).toString('latin1')).toContain('Content-Type: image/jpeg; transfer-syntax=1.2.840.10008.1.2.4.50');
    // A native frame asked without a transfer syntax is the stored bytes too.
    const native = await api.retrieveInstanceFrames({ ...uidsOf(CORPUS.ct), frameNumbers: [1] });
    expect(hex(native[0]!)).toBe(hex(framesByDcmjs(CORPUS.ct.file)[0]!));
  });

  it('answers metadata as DICOM JSON with BulkDataURIs that resolve to the stored values', async () => {
    const api = client(projectId, token);
    const [study] = await api.retrieveStudyMetadata({ studyInstanceUID: CORPUS.us.study });
    expect(study!['00080018']).toEqual({ vr: 'UI', Value: [CORPUS.us.sop] });
    expect(study!['00280008']!.Value).toEqual([30]);
    expect(study!['00020010']).toEqual({ vr: 'UI', Value: [CORPUS.us.syntax] });
    const [mr] = await api.retrieveSeriesMetadata({ studyInstanceUID: CORPUS.mr.study, seriesInstanceUID: CORPUS.mr.series });
    // An implicit-VR file: VRs from the dictionary, numbers as numbers, names as PN objects.
    expect(mr!['00280010']).toEqual({ vr: 'US', Value: [64] });
    expect(mr!['00100010']!.vr).toBe('PN');
    expect(typeof (mr!['00100010']!.Value![0] as { Alphabetic: string }).Alphabetic).toBe('string');
    for (const item of ITEMS) {
      const [object] = await api.retrieveInstanceMetadata(uidsOf(item));
      const pixels = object!['7FE00010']!;
      expect(pixels.Value).toBeUndefined();
      expect(pixels.BulkDataURI).toBe(wadoUrl(item, '/bulkdata/7FE00010'));
      const parts = await api.retrieveBulkData({ BulkDataURI: pixels.BulkDataURI!, mediaTypes: AS_STORED });
      expect(parts.map(hex)).toEqual(framesByDcmjs(item.file).map(hex));
    }
    // Any other binary value is a BulkDataURI too, answering its stored bytes.
    const [ct] = await api.retrieveInstanceMetadata(uidsOf(CORPUS.ct));
    const binary = Object.entries(ct!).find(([tag, e]) => tag !== '7FE00010' && e.BulkDataURI !== undefined);
    expect(binary).toBeDefined();
    const value = await api.retrieveBulkData({ BulkDataURI: binary![1].BulkDataURI! });
    const original = dcmjs.data.DicomMessage.readFile(arrayBuffer(dicomFixture(CORPUS.ct.file))).dict[binary![0]]!.Value![0] as ArrayBuffer;
    expect(hex(value[0]!)).toBe(hex(original));
  });

  it('answers 404 in words for an unknown UID or frame, 406 in words for what it cannot send', async () => {
    const unknown = await call(`${server.api}/study-petitions/${projectId}/dicomweb/studies/1.2.3.4/metadata`, { token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toMatch(/No study with this Study Instance UID/);
    expect((await call(wadoUrl({ ...CORPUS.ct, sop: '1.2.3' }), { token })).status).toBe(404);
    const frame = await call(wadoUrl(CORPUS.ct, '/frames/2'), { token });
    expect(frame.status).toBe(404);
    expect(frame.body.message).toMatch(/has 1 frame: frame 2/);
    const png = await call(wadoUrl(CORPUS.us, '/frames/1'), { token, headers: { accept: 'multipart/related; type="image/png"' } });
    expect(png.status).toBe(406);
    expect(png.body.message).toMatch(/stored as image\/jpeg/);
    expect((await call(wadoUrl(CORPUS.us, '/frames/1'), { token, headers: { accept: 'multipart/related; type="application/octet-stream"' } })).status).toBe(406);
    expect((await call(wadoUrl(CORPUS.us), { token, headers: { accept: 'multipart/related; type="application/dicom"; transfer-syntax=1.2.840.10008.1.2.1' } })).status).toBe(406);
    expect((await call(wadoUrl(CORPUS.us, '/metadata'), { token, headers: { accept: 'multipart/related; type="application/dicom+xml"' } })).status).toBe(406);
  });

  it('keeps to the project’s tenant and roles: every role that may read retrieves, another company 404, no session 401', async () => {
    for (const who of [as.user, as.companyAdmin, as.sysUser, as.sysAdmin]) {
      const api = client(projectId, who);
      expect(hex(await api.retrieveInstance(uidsOf(CORPUS.ct)))).toBe(sha256(dicomFixture(CORPUS.ct.file)));
      expect(await api.retrieveSeriesMetadata(uidsOf(CORPUS.j2k))).toHaveLength(1);
      expect(await api.retrieveInstanceFrames({ ...uidsOf(CORPUS.jls), frameNumbers: [4], mediaTypes: AS_STORED })).toHaveLength(1);
    }
    const stranger = client(projectId, as.stranger);
    expect(await failure(stranger.retrieveStudy({ studyInstanceUID: CORPUS.ct.study }))).toBe(404);
    expect(await failure(stranger.retrieveSeriesMetadata(uidsOf(CORPUS.ct)))).toBe(404);
    expect(await failure(stranger.retrieveInstanceFrames({ ...uidsOf(CORPUS.ct), frameNumbers: [1] }))).toBe(404);
    expect(await failure(stranger.retrieveBulkData({ BulkDataURI: wadoUrl(CORPUS.ct, '/bulkdata/7FE00010') }))).toBe(404);
    expect(await failure(client(999_999, token).retrieveStudy({ studyInstanceUID: CORPUS.ct.study }))).toBe(404);
    expect(await failure(client(projectId).retrieveInstance(uidsOf(CORPUS.ct)))).toBe(401);
    // A deleted upload's instances are gone from retrieval as from search.
    const other = await makeProject(server.services, company);
    await client(other.id, token).storeInstances({ datasets: [arrayBuffer(dicomFixture(CORPUS.mr.file))] });
    const row = ((await listFiles(server.api, token, other.id)).body.data as { id: number }[])[0]!;
    expect((await waitProcessed(server.api, token, other.id, row.id)).processing.status).toBe('ready');
    expect(await client(other.id, token).retrieveInstance(uidsOf(CORPUS.mr))).toBeDefined();
    expect((await call(`${server.api}/study-petitions-files-delete/${row.id}`, { method: 'PUT', token })).status).toBe(200);
    expect(await failure(client(other.id, token).retrieveInstance(uidsOf(CORPUS.mr)))).toBe(404);
  });
});
