// Series thumbnails (issue 34, item 3) through a listening server with its job runner, on both
// databases: real DICOM files of the shared corpus (test/fixtures/dicom, NOTICE) in a real zip,
// drawn by the real renderer process, decoded again by sharp.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { DICOM_DIR, sh } from '../ingest/helpers.js';
import { startTestServer, type TestServer } from '../server.js';
import { makeArchive, upload, waitProcessed } from '../uploads.js';

/** Files without an image (an RT Plan, a structure set, a structured report, a DICOMDIR). */
const NO_IMAGE = ['s22_RTPLAN_implicit.dcm', 's23_RTSTRUCT_no_preamble_no_meta.dcm', 's24_RTIONPLAN_explicitLE_no_meta.dcm', 's25_SR_comprehensive.dcm'];
/** A file whose meta has no transfer syntax: the renderer cannot read it. */
const UNDRAWABLE = 's39_meta_missing_transfer_syntax.dcm';

/** The file's study and series as dcmtk reads them; null when dcmtk reads neither (a deflated dataset). */
async function seriesOf(file: string): Promise<{ study: string; series: string } | null> {
  const out = await sh(`dcmdump -q -s +P 0020,000d +P 0020,000e '${file}' || true`, path.dirname(file));
  const uid = (tag: string) => new RegExp(`^\\(${tag}\\) UI \\[(.*?)\\]`, 'm').exec(out)?.[1];
  const [study, series] = [uid('0020,000d'), uid('0020,000e')];
  return study && series ? { study, series } : null;
}

describe.each(dialects())('series thumbnails on %s', (dialect) => {
  let server: TestServer;
  let scratch: string;
  let project: ProjectRow;
  let token: string;
  let fileId: number;
  const members = new Map<string, { study: string; series: string }>();

  const thumbnail = (study: string, series: string, as = token, headers: Record<string, string> = {}, id = project.id) =>
    fetch(`${server.api}/study-petitions/${id}/dicomweb/studies/${study}/series/${series}/thumbnail`, { headers: { ...(as ? { authorization: `Bearer ${as}` } : {}), ...headers } });

  async function uploadReady(name: string, data: Buffer): Promise<number> {
    const sent = await upload(server.api, token, { name, data }, project.id);
    expect(sent.status).toBe(201);
    const id = sent.body.data[0].id as number;
    expect((await waitProcessed(server.api, token, project.id, id)).processing.status).toBe('ready');
    return id;
  }

  /** Waits for the thumbnail job of a file to end. */
  async function thumbnailsDone(id: number): Promise<void> {
    for (let i = 0; i < 600; i += 1) {
      const job = await server.services.handle.db.selectFrom('jobs').select('status').where('name', '=', 'render-thumbnails').where('payload', 'like', `%"fileId":${id},%`).executeTakeFirst();
      if (job && (job.status === 'done' || job.status === 'failed')) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('thumbnails were not drawn');
  }

  beforeAll(async () => {
    server = await startTestServer(dialect, { DELETED_RETENTION_DAYS: '0' }, { jobs: true });
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-thumbnails-'));
    const names = fs.readdirSync(DICOM_DIR).filter((n) => /^s\d\d_/.test(n) && n !== 's40_DICOMDIR');
    for (const name of names) {
      fs.copyFileSync(path.join(DICOM_DIR, name), path.join(scratch, name));
      const uids = name === UNDRAWABLE ? null : await seriesOf(path.join(scratch, name));
      if (uids) members.set(name, uids);
    }
    const company = await makeCompany(server.services);
    const user = await makeUser(server.services, { company });
    token = await login(server.api, user.username, PASSWORD);
    project = await makeProject(server.services, company);
    const zip = makeArchive(scratch, Object.fromEntries(names.map((n) => [n, fs.readFileSync(path.join(scratch, n))])), `bsdtar --format zip -cf out.zip ${names.join(' ')}`, 'out.zip');
    fileId = await uploadReady('corpus.zip', zip);
    await thumbnailsDone(fileId);
  }, 180_000);

  afterAll(async () => {
    await server?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('draws a real image of at most 256 px for at least 97 % of the image series', async () => {
    const imageSeries = new Map([...members].filter(([name]) => !NO_IMAGE.includes(name)).map(([name, s]) => [s.series, { ...s, name }]));
    let drawn = 0;
    const flat: string[] = [];
    for (const { study, series, name } of imageSeries.values()) {
      const answer = await thumbnail(study, series);
      if (answer.status !== 200) continue;
      expect(answer.headers.get('content-type')).toBe('image/webp');
      expect(answer.headers.get('cache-control')).toContain('private');
      const image = sharp(Buffer.from(await answer.arrayBuffer()));
      const { width, height } = await image.metadata();
      expect(Math.max(width, height)).toBeLessThanOrEqual(256);
      const stats = await image.stats();
      // Not one flat colour: some channel varies.
      if (stats.channels.some((c) => c.max > c.min)) drawn += 1;
      else flat.push(name);
    }
    // The whole-slide image's middle tile is bare glass: drawn as it is, one colour.
    expect(flat).toEqual(['s28_SM_wsi_jpegls.dcm']);
    drawn += flat.length;
    expect(imageSeries.size).toBeGreaterThanOrEqual(15);
    expect(drawn / imageSeries.size).toBeGreaterThanOrEqual(0.97);
  });

  it('gives an RT Plan and a structured report a placeholder with the reason in words', async () => {
    for (const name of ['s22_RTPLAN_implicit.dcm', 's25_SR_comprehensive.dcm']) {
      const { study, series } = members.get(name)!;
      const answer = await thumbnail(study, series);
      expect(answer.status).toBe(404);
      expect(((await answer.json()) as { message: string }).message).toBe('This series has no image to show');
    }
  });

  it('answers 304 to a current ETag', async () => {
    const { study, series } = members.get('s01_CT_small.dcm')!;
    const first = await thumbnail(study, series);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    const again = await thumbnail(study, series, token, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect((await thumbnail(study, series, token, { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('keeps another company and no session out', async () => {
    const { study, series } = members.get('s01_CT_small.dcm')!;
    const other = await makeUser(server.services, { company: await makeCompany(server.services) });
    const foreign = await login(server.api, other.username, PASSWORD);
    const answer = await thumbnail(study, series, foreign);
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as { message: string }).message).not.toContain('image');
    expect((await thumbnail(study, series, '')).status).toBe(401);
    expect((await thumbnail('1.2.3', '4.5.6')).status).toBe(404);
  });

  it('leaves an upload the renderer stops on ready, with a placeholder', async () => {
    process.env.PORTAL_THUMBNAIL_RENDERER_CRASH = '1';
    try {
      const data = await sh(`cp s01_CT_small.dcm crash.dcm && chmod u+w crash.dcm && dcmodify -nb -gst -gse -gin crash.dcm && echo ok`, scratch);
      expect(data).toContain('ok');
      const moved = (await seriesOf(path.join(scratch, 'crash.dcm')))!;
      const id = await uploadReady('crash.dcm', fs.readFileSync(path.join(scratch, 'crash.dcm')));
      await thumbnailsDone(id);
      const answer = await thumbnail(moved.study, moved.series);
      expect(answer.status).toBe(404);
      expect(((await answer.json()) as { message: string }).message).toBe('The image could not be drawn: the renderer stopped on this file');
      expect((await waitProcessed(server.api, token, project.id, id)).processing.status).toBe('ready');
    } finally {
      delete process.env.PORTAL_THUMBNAIL_RENDERER_CRASH;
    }
  });

  it("removes a deleted upload's thumbnails from storage with its bytes", async () => {
    const id = await uploadReady('one.dcm', fs.readFileSync(path.join(scratch, 's10_MR_small_implicit.dcm')));
    await thumbnailsDone(id);
    const { study, series } = members.get('s10_MR_small_implicit.dcm')!;
    const keys = (await server.services.handle.db.selectFrom('series_thumbnails').select('storage_key').where('file_id', '=', id).execute()).map((r) => r.storage_key);
    expect(keys.length).toBe(1);
    const objects = async () => {
      const found: string[] = [];
      for await (const o of server.services.storage.list(`thumbnails/${id}/`)) found.push(o.key);
      return found;
    };
    expect(await objects()).toEqual(keys);
    expect((await call(`${server.api}/study-petitions-files-delete/${id}`, { method: 'PUT', token })).status).toBe(200);
    await server.services.purge.purgeDue({ olderThanMs: 0 });
    expect(await objects()).toEqual([]);
    // The same series is still in the corpus upload: served from that live file.
    expect((await thumbnail(study, series)).status).toBe(200);
  });
});
