// Series thumbnails (issue 34, item 3) through a listening server with its job runner, on both
// databases: the whole shared DICOM corpus in one zip, each image series' thumbnail checked as a
// picture (sharp reads it back), the series without pictures and a damaged file failing with words
// while their uploads stay processed, the renderer's process killed mid-picture, the tenant rules,
// ETag/304 and DICOMweb's rendered thumbnail.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow, ProjectRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { sh } from '../ingest/helpers.js';
import { startTestServer, type TestServer } from '../server.js';
import { FIXTURES, makeArchive, upload, waitProcessed } from '../uploads.js';

/** The shared corpus: the processing fixtures and the rest of it, copied for these tests. */
const CORPUS = ['dicom', 'dicom-more'].flatMap((dir) =>
  fs
    .readdirSync(path.join(FIXTURES, dir))
    .filter((name) => /^s\d\d_/.test(name))
    .map((name) => ({ name, file: path.join(FIXTURES, dir, name) })),
);

interface Facts {
  study: string | null;
  series: string | null;
  sop: string | null;
  pixels: boolean;
}

/** What dcmtk reads of a file's top level (not inside sequences): its UIDs and whether it carries Pixel Data. */
async function dcmtkFacts(file: string): Promise<Facts> {
  // The whole dump: nested items are indented, so a line starting with the tag is the top level's.
  const out = await sh(`dcmdump -q '${file}'`, path.dirname(file));
  const uid = (tag: string) => new RegExp(`^\\(${tag}\\) UI \\[(.*?)\\]`, 'm').exec(out)?.[1]?.trim() || null;
  return { study: uid('0020,000d'), series: uid('0020,000e'), sop: uid('0008,0018'), pixels: /^\(7fe0,0010\)/m.test(out) };
}

async function until<T>(read: () => Promise<T | undefined>, what: string, tries = 600, everyMs = 100): Promise<T> {
  for (let i = 0; i < tries; i += 1) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${what} did not happen`);
}

describe.each(dialects())('series thumbnails on %s', (dialect) => {
  let server: TestServer;
  let scratch: string;
  let company: CompanyRow;
  let project: ProjectRow;
  let token: string;
  let foreignToken: string;
  /** Image series (study, series) of the corpus, as dcmtk reads it. */
  const imageSeries = new Map<string, string>();
  /** Series without any Pixel Data (reports, plans, waveforms). */
  const pictureless = new Map<string, string>();
  let ctStudy: string;
  let ctSeries: string;

  const thumbnailUrl = (study: string, series: string, id = project.id) => `${server.api}/study-petitions/${id}/studies/${study}/series/${series}/thumbnail`;
  const dicomwebUrl = (study: string, series: string, id = project.id) => `${server.api}/study-petitions/${id}/dicomweb/studies/${study}/series/${series}/thumbnail`;

  /** The thumbnail's answer once it is no longer being made. */
  async function settled(study: string, series: string, id = project.id) {
    return until(async () => {
      const response = await fetch(thumbnailUrl(study, series, id), { headers: { authorization: `Bearer ${token}` } });
      if (response.status === 202) {
        await response.arrayBuffer();
        return undefined;
      }
      return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
    }, `the thumbnail of series ${series}`);
  }

  async function uploadOne(name: string, data: Buffer, id = project.id): Promise<number> {
    const sent = await upload(server.api, token, { name, data }, id);
    expect(sent.status).toBe(201);
    const fileId = sent.body.data[0].id as number;
    const row = await waitProcessed(server.api, token, id, fileId);
    expect(row.processing.status).toBe('ready');
    return fileId;
  }

  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { jobs: true });
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-thumbnails-'));
    for (const { name, file } of CORPUS) {
      fs.copyFileSync(file, path.join(scratch, name));
      const facts = await dcmtkFacts(file);
      if (facts.study === null || facts.series === null || facts.sop === null) continue;
      if (facts.pixels) imageSeries.set(facts.series, facts.study);
    }
    for (const { file } of CORPUS) {
      const facts = await dcmtkFacts(file);
      if (facts.study !== null && facts.series !== null && facts.sop !== null && !imageSeries.has(facts.series)) pictureless.set(facts.series, facts.study);
    }
    const ct = await dcmtkFacts(path.join(scratch, 's03_CT_series5N_2062.dcm'));
    ctStudy = ct.study!;
    ctSeries = ct.series!;

    company = await makeCompany(server.services);
    token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    project = await makeProject(server.services, company);
    const foreign = await makeCompany(server.services, 'Elsewhere Ltd');
    foreignToken = await login(server.api, (await makeUser(server.services, { company: foreign })).username, PASSWORD);

    const names = CORPUS.map((c) => c.name);
    const zip = makeArchive(scratch, Object.fromEntries(names.map((n) => [n, fs.readFileSync(path.join(scratch, n))])), `bsdtar --format zip -cf corpus.zip ${names.join(' ')}`, 'corpus.zip');
    await uploadOne('corpus.zip', zip);
  }, 180_000);
  afterAll(async () => {
    server.services.thumbnails.renderer.close();
    await server.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('draws at least 97 % of the corpus’s image series as real pictures of at most 256 pixels', async () => {
    let drawn = 0;
    const failures: string[] = [];
    for (const [series, study] of imageSeries) {
      const answer = await settled(study, series);
      if (answer.status !== 200) {
        failures.push(`${series}: ${answer.status} ${answer.bytes.toString()}`);
        continue;
      }
      expect(answer.headers.get('content-type')).toBe('image/jpeg');
      const meta = await sharp(answer.bytes).metadata();
      expect(meta.format).toBe('jpeg');
      expect(Math.max(meta.width, meta.height)).toBeLessThanOrEqual(256);
      expect(Math.min(meta.width, meta.height)).toBeGreaterThan(0);
      // Not one flat value: some channel has more than one level.
      const stats = await sharp(answer.bytes).stats();
      expect(stats.channels.some((c) => c.max > c.min), `series ${series} is drawn in one value`).toBe(true);
      drawn += 1;
    }
    const share = drawn / imageSeries.size;
    console.log(`thumbnails: ${drawn} of ${imageSeries.size} image series of the corpus drawn (${(share * 100).toFixed(1)} %)${failures.length ? `; not drawn: ${failures.join('; ')}` : ''}`);
    expect(imageSeries.size).toBeGreaterThanOrEqual(25);
    expect(share).toBeGreaterThanOrEqual(0.97);
  });

  it('says in words why a series without pictures has no thumbnail', async () => {
    expect(pictureless.size).toBeGreaterThan(0);
    for (const [series, study] of pictureless) {
      const answer = await settled(study, series);
      expect(answer.status).toBe(409);
      expect(JSON.parse(answer.bytes.toString()).message).toBe('This series holds no pictures (its instances carry no pixel data, e.g. a report or a plan).');
    }
  });

  it('answers 304 for the picture’s ETag, and DICOMweb’s rendered thumbnail is the same picture', async () => {
    const first = await settled(ctStudy, ctSeries);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const again = await fetch(thumbnailUrl(ctStudy, ctSeries), { headers: { authorization: `Bearer ${token}`, 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect((await again.arrayBuffer()).byteLength).toBe(0);
    const other = await fetch(thumbnailUrl(ctStudy, ctSeries), { headers: { authorization: `Bearer ${token}`, 'if-none-match': '"0000"' } });
    expect(other.status).toBe(200);
    await other.arrayBuffer();

    const dicomweb = await fetch(dicomwebUrl(ctStudy, ctSeries), { headers: { authorization: `Bearer ${token}`, accept: 'image/jpeg' } });
    expect(dicomweb.status).toBe(200);
    expect(dicomweb.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await dicomweb.arrayBuffer()).equals(first.bytes)).toBe(true);
  });

  it('answers 404 in words to another company, for an unknown series and without a session', async () => {
    for (const url of [thumbnailUrl(ctStudy, ctSeries), dicomwebUrl(ctStudy, ctSeries)]) {
      const foreign = await call(url, { token: foreignToken });
      expect(foreign.status).toBe(404);
      expect(foreign.body.message).toMatch(/\w+ \w+/);
      expect(JSON.stringify(foreign.body)).not.toContain(ctSeries);
      expect((await call(url)).status).toBe(401);
    }
    const unknown = await call(thumbnailUrl(ctStudy, '1.2.3.4.5'), { token });
    expect(unknown).toMatchObject({ status: 404, body: { message: 'No series with this Series Instance UID is in this study of the project' } });
    expect((await call(thumbnailUrl(ctStudy, ctSeries, 999_999), { token })).status).toBe(404);
    expect((await call(`${server.api}/study-petitions/${project.id}/studies/${ctStudy}/series/not-a-uid/thumbnail`, { token })).status).toBe(400);
  });

  it('keeps an upload processed whose picture is damaged, the series failing with words', async () => {
    const own = await makeProject(server.services, company, 'Damaged');
    // A JPEG 2000 CT whose code stream after its first bytes is noise.
    const broken = Buffer.from(fs.readFileSync(path.join(scratch, 's02_CT_693_J2KI.dcm')));
    const start = broken.indexOf(Buffer.from([0xff, 0x4f, 0xff, 0x51]));
    for (let i = start + 60; i < broken.length - 4; i += 1) broken[i] = (i * 7919) % 251;
    await uploadOne('damaged.dcm', broken, own.id);
    const facts = await dcmtkFacts(path.join(scratch, 's02_CT_693_J2KI.dcm'));
    const answer = await settled(facts.study!, facts.series!, own.id);
    if (answer.status === 200) {
      // A decoder may read noise as a picture: then it is still a real one.
      expect((await sharp(answer.bytes).metadata()).format).toBe('jpeg');
    } else {
      expect(answer.status).toBe(409);
      expect(JSON.parse(answer.bytes.toString()).message).toMatch(/^(This series’|The thumbnail renderer)/);
    }
  });

  it('fails only the picture being drawn when its renderer is killed, and draws the next with a new process', async () => {
    const own = await makeProject(server.services, company, 'Killed');
    const renderer = server.services.thumbnails.renderer;
    renderer.close();
    // The largest picture of the corpus (1760² JPEG 2000): about a second to draw.
    const cr = path.join(scratch, 's16_CR_RG3_J2KI.dcm');
    const sent = await upload(server.api, token, { name: 'cr.dcm', data: fs.readFileSync(cr) }, own.id);
    const fileId = sent.body.data[0].id as number;
    const killed = await until(() => Promise.resolve(renderer.drawing ? (renderer.pid ?? undefined) : undefined), 'the renderer drawing', 12_000, 5);
    process.kill(killed, 'SIGKILL');
    const facts = await dcmtkFacts(cr);
    const answer = await settled(facts.study!, facts.series!, own.id);
    expect((await waitProcessed(server.api, token, own.id, fileId)).processing.status).toBe('ready');
    expect(answer.status).toBe(409);
    expect(JSON.parse(answer.bytes.toString()).message).toMatch(/^The thumbnail renderer stopped while drawing this series’ picture/);

    const mr = path.join(scratch, 's10_MR_small_implicit.dcm');
    await uploadOne('mr.dcm', fs.readFileSync(mr), own.id);
    const next = await dcmtkFacts(mr);
    expect((await settled(next.study!, next.series!, own.id)).status).toBe(200);
    expect(renderer.pid).not.toBeNull();
    expect(renderer.pid).not.toBe(killed);
  });

  it('stops showing a deleted upload’s thumbnails', async () => {
    const own = await makeProject(server.services, company, 'Deleted');
    const mr = path.join(scratch, 's10_MR_small_implicit.dcm');
    const fileId = await uploadOne('mr.dcm', fs.readFileSync(mr), own.id);
    const facts = await dcmtkFacts(mr);
    expect((await settled(facts.study!, facts.series!, own.id)).status).toBe(200);
    expect((await call(`${server.api}/study-petitions-files-delete/${fileId}`, { method: 'PUT', token })).status).toBe(200);
    expect((await call(thumbnailUrl(facts.study!, facts.series!, own.id), { token })).status).toBe(404);
  });
});
