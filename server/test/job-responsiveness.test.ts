// Issue 12 item 3: an upload of 100,001 tiny entries is processed while the API keeps answering
// and the server's memory stays bounded, measured on a real server process (its own event loop and
// its own RSS), as an operator would see it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dialects } from './databases.js';
import { call, login } from './http.js';
import { startServerProcess } from './processes.js';
import { listFiles, upload } from './uploads.js';

const ADMIN = { ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'Resp0nsive!-pw' };
const ENTRIES = 100_001;
/** Generous against loaded CI machines; the freeze was 4–5 s, the aim is ~200 ms. */
const WORST_WAIT_MS = 1000;
/**
 * The server runs here under tsx, which holds ~60 MB more than `npm start`'s bundle (155–185 MB
 * before any processing). Before issue 12 this upload took it to 660 MB; now 440–460 MB (see
 * docs/processing.md, "Responsiveness", for why it is still over the 200 MB target).
 */
const PEAK_RSS_MB = 520;

/** The process's peak resident set so far (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmHWM:\s+(\d+) kB/.exec(status);
  if (!kb) throw new Error('VmHWM not found');
  return Number(kb[1]) / 1024;
}

// bsdtar writes the 100,001 entries from an mtree description, each naming one small file for its
// bytes: far faster than creating 100,001 files first.
let scratch: string;
let zip: Buffer;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-many-'));
  fs.writeFileSync(path.join(scratch, 'entry.txt'), 'a tiny entry\n');
  const lines = Array.from({ length: ENTRIES }, (_, i) => `n${String(i).padStart(6, '0')}.txt type=file mode=0644 contents=entry.txt`);
  fs.writeFileSync(path.join(scratch, 'spec.mtree'), `#mtree\n${lines.join('\n')}\n`);
  execFileSync('bsdtar', ['--format', 'zip', '-cf', 'many.zip', '@spec.mtree'], { cwd: scratch });
  zip = fs.readFileSync(path.join(scratch, 'many.zip'));
}, 300_000);
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe.each(dialects())('processing a zip of 100,001 entries on %s', (dialect) => {
  it('keeps answering within a second and stays within its memory bound', async () => {
    const database = await createTestDatabase(dialect);
    const server = await startServerProcess({ DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, ...ADMIN });
    try {
      const api = `${server.url}/api/v1`;
      const token = await login(api, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD);
      const project = (await call(`${api}/study-petitions`, { token, json: { name: 'Many' } })).body.data[0];
      const answer = await upload(api, token, { name: 'many.zip', data: zip }, project.id);
      expect(answer.status).toBe(201);
      const baselineRss = peakRssMb(server.child.pid!);

      // Probe the API every ~50 ms while the job runs; each probe's wait is what a user would feel.
      let worst = 0;
      let probes = 0;
      let status = 'pending';
      let file: { processing: { status: string; summary: { other: number; skipped: number; skipped_reasons: Record<string, number> } } } | undefined;
      const end = Date.now() + 600_000;
      let lastList = 0;
      while (status !== 'ready' && status !== 'failed' && Date.now() < end) {
        const started = performance.now();
        const health = await fetch(`${api}/health`);
        worst = Math.max(worst, performance.now() - started);
        probes += 1;
        expect(health.status).toBe(200);
        if (Date.now() - lastList > 1000) {
          lastList = Date.now();
          file = (await listFiles(api, token, project.id)).body.data[0];
          status = file!.processing.status;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      // The contents of such an upload are asked for too, as the web app does when it is opened.
      const started = performance.now();
      const contents = await call(`${api}/study-petitions-files/${answer.body.data[0].id}/contents?offset=99900&limit=100`, { token });
      const contentsMs = performance.now() - started;
      const peak = peakRssMb(server.child.pid!);
      console.log(`[${dialect}] ${probes} probes, worst wait ${worst.toFixed(0)} ms, contents page ${contentsMs.toFixed(0)} ms, peak RSS ${peak.toFixed(0)} MB (${baselineRss.toFixed(0)} MB before processing)`);

      expect(status).toBe('ready');
      expect(file!.processing.summary).toMatchObject({ other: 100_000, skipped: 1, skipped_reasons: { 'too many entries': 1 } });
      expect(contents.status).toBe(200);
      expect(contents.body.data.page.total).toBe(100_000);
      expect(contents.body.data.entries).toHaveLength(100);
      expect(worst).toBeLessThan(WORST_WAIT_MS);
      expect(peak).toBeLessThan(PEAK_RSS_MB);
    } finally {
      server.child.kill('SIGTERM');
      await server.waitForExit();
      await database.drop();
    }
  }, 900_000);
});
