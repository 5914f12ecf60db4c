// Issue 12 item 1, through the real server: a tiny nest of zips (4 levels × 16, leaves of 200 MB
// of zeros, as the attack built it) stops at the work budget with its reason, and company A's
// uploads of it cannot keep company B's small DICOM waiting.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from './databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from './factories.js';
import { login } from './http.js';
import { archivesShown, buildNestedZips } from './nested-zips.js';
import { startTestServer } from './server.js';
import { dicomFixture, listFiles, upload } from './uploads.js';

/** Low enough that each bomb stops within seconds; the default (1,000) stops the same way, later. */
const MAX_ARCHIVES = 60;

type Processing = { status: string; error: string | null; summary: { skipped: number; skipped_reasons: Record<string, number> } | null };

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 240_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

let scratch: string;
let bomb: Buffer;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bomb-'));
  bomb = fs.readFileSync(buildNestedZips(scratch, { levels: 4, width: 16, leafBytes: 200 * 1024 ** 2 }));
}, 300_000);
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe.each(dialects())('a nested zip bomb and fair processing on %s', (dialect) => {
  it("stops the bomb at the archive budget, and another company's DICOM is ready meanwhile", async () => {
    // 4,369 archives and 65,536 leaves in well under a megabyte: every limit on bytes holds.
    expect(bomb.length).toBeLessThan(1024 ** 2);
    const server = await startTestServer(dialect, { MAX_ARCHIVES_PER_UPLOAD: String(MAX_ARCHIVES) }, { jobs: true });
    try {
      const a = await makeCompany(server.services);
      const b = await makeCompany(server.services);
      const tokenA = await login(server.api, (await makeUser(server.services, { company: a })).username, PASSWORD);
      const tokenB = await login(server.api, (await makeUser(server.services, { company: b })).username, PASSWORD);
      const projectA = await makeProject(server.services, a);
      const projectB = await makeProject(server.services, b);

      // A fills both processing slots and queues more behind them before B uploads anything.
      const bombs: number[] = [];
      for (let i = 0; i < 3; i += 1) bombs.push((await upload(server.api, tokenA, { name: `bomb${i}.zip`, data: bomb }, projectA.id)).body.data[0].id);
      const dicom = await upload(server.api, tokenB, { name: 'ct.dcm', data: dicomFixture('s01_CT_small.dcm') }, projectB.id);
      expect(dicom.status).toBe(201);

      const statesOfA = async () => new Map(((await listFiles(server.api, tokenA, projectA.id)).body.data as { id: number; processing: Processing }[]).map((f) => [f.id, f.processing]));
      const whenBReady = await until('B ready', async () => {
        const [file] = (await listFiles(server.api, tokenB, projectB.id)).body.data as { processing: Processing }[];
        if (file!.processing.status === 'failed') throw new Error(`B's DICOM failed: ${file!.processing.error}`);
        return file!.processing.status === 'ready' ? statesOfA() : undefined;
      });
      // B did not wait behind all of A's uploads: it took the first slot that freed up, before A's
      // third upload, which was queued earlier (first come, first served would have run that first).
      expect([...whenBReady.values()].filter((p) => p.status === 'pending' || p.status === 'processing').length).toBeGreaterThan(0);
      const [jobB] = await server.services.repos.jobs.findBySubject(`files/${dicom.body.data[0].id}`);
      const [jobA3] = await server.services.repos.jobs.findBySubject(`files/${bombs[2]}`);
      expect(jobB!.id).toBeGreaterThan(jobA3!.id);
      expect(jobA3!.started_at === null || jobB!.started_at! < jobA3!.started_at).toBe(true);

      const ended = await until('every bomb stopped', async () => {
        const states = await statesOfA();
        return [...states.values()].every((p) => p.status === 'ready' || p.status === 'failed') ? states : undefined;
      });
      for (const id of bombs) {
        expect(ended.get(id)).toMatchObject({
          status: 'failed',
          error:
            `Processing stopped: the upload holds more than ${MAX_ARCHIVES} archives (counting those inside other archives), the most one upload may open. ` +
            'Unpack it and upload its contents, or ask your administrator to raise MAX_ARCHIVES_PER_UPLOAD.',
        });
        // What was found before the stop stays listed: leaves skipped by the ratio limit, never written.
        const rows = await server.services.repos.entries.page(id, { offset: 0, limit: 100_000 });
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.every((r) => r.kind === 'skipped' && r.reason === 'compression ratio over the limit')).toBe(true);
        expect(archivesShown(rows.map((r) => r.path))).toBeLessThanOrEqual(MAX_ARCHIVES);
        // Stopped at the budget, not at some other limit long before it.
        expect(archivesShown(rows.map((r) => r.path))).toBeGreaterThan(MAX_ARCHIVES - 16);
        const [job] = await server.services.repos.jobs.findBySubject(`files/${id}`);
        expect(job).toMatchObject({ status: 'done', attempts: 1, fair_key: `companies/${a.id}` });
      }
    } finally {
      await server.close();
    }
  }, 600_000);
});
