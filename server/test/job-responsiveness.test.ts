// Issue 12 item 3: an upload of 100,001 tiny entries (a zip, a tar, a 7z) is processed while the API keeps answering
// and the server's memory stays within its documented bound, measured on a real server process
// (its own event loop and its own RSS), bundled and started with `npm start`'s Node options, as an
// operator runs it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../src/db/database.js';
import { createTestDatabase, dialects } from './databases.js';
import { call, login } from './http.js';
import { startBundledServer } from './processes.js';
import { listFiles, upload } from './uploads.js';

const ADMIN = { ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'Resp0nsive!-pw' };
const ENTRIES = 100_001;
/**
 * The documented bound (docs/processing.md, "Responsiveness"): a peak resident set (VmHWM) under
 * 200 MB (10^6 bytes), whatever the entry count. With the native tar path and `npm start`'s marking
 * triggers (which stopped the full collections --optimize-for-size ran while an upload streamed
 * in), runs on this 2-core machine peak at 166–188 MB (zip) and 182–198 MB (tar), and the tar at
 * 175–180 MB since the SHA-256 worker that hashed its 102 MB upload is stopped once idle; the server
 * holds 134–140 MB (zip) and 151–155 MB (tar) once the upload is received. Before: 185–214 MB
 * for the zip, and a tar of these entries peaked at 322–393 MB (7-Zip's listing of every entry and
 * one run over the whole archive). What processing adds to what the server held before it is
 * bounded too, so a change that makes processing grow with the entry count fails even where the
 * upload path happens to leave less. A 7z of these entries peaked at 208–237 MB while 7-Zip ran in a
 * thread of the server (what V8 and the C allocator kept of its run); in a process of its own, the
 * server peaks at 140–160 MB (that process at ~150 MB, given back when the job ends). With
 * `--heap-growing-percent=50` in `npm start` (2026-11-25): zip 180–187 MB, tar 177–186 MB, 7z ~150 MB.
 * With `MALLOC_TRIM_THRESHOLD_=33554432` too (2026-11-25, evening, three runs): zip 175–180 MB,
 * tar 178–182 MB, 7z 152–153 MB; on PostgreSQL zip 170–171 MB, tar 180 MB. Two runs without it,
 * alternated with those: zip 180–182 MB, tar 175–186 MB, 7z 150–152 MB, PostgreSQL zip 164–166 MB.
 */
const PEAK_RSS_BYTES = 200e6;
const PROCESSING_GROWTH_BYTES = 100e6;
/**
 * The aim is that no request waits more than ~200 ms because of processing. What a probe measures
 * also holds the time the OS gives the server's thread on a machine whose 2 cores are shared with
 * the test's own client, the extraction thread and, in CI, other test files: on such a machine
 * (load average 4–21) the worst of 400–1,500 probes was 29–600 ms and the 95th percentile 7–90 ms,
 * while the freeze this guards against (the whole directory parsed in one turn of the loop) held
 * every probe for 2–5 s. So: 95 % of the probes answer within 200 ms, and none waits a second.
 */
const TYPICAL_WAIT_MS = 200;
const WORST_WAIT_MS = 1000;

/** The process's CPU time so far (user + system), in seconds. */
function cpuSeconds(pid: number): number {
  // Fields after the command's name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // /proc counts in USER_HZ, 100 per second on every Linux the portal runs on.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The process's peak resident set so far (VmHWM), in bytes. */
function peakRssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmHWM:\s+(\d+) kB/.exec(status);
  if (!kb) throw new Error('VmHWM not found');
  return Number(kb[1]) * 1024;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/**
 * The zip on both databases. The tar (read by the native tar path, its members left in place in the
 * upload) and the 7z (7-Zip in its own process, one solid block) on SQLite only: what differs from
 * the zip is the extraction, which no database touches, and each case takes a minute or two of CI's
 * time. RESPONSIVENESS_CASES=tar,zip chooses others when measuring by hand (each name on every
 * database).
 */
type Case = { archive: 'many.zip' | 'many.tar' | 'many.tar.gz' | 'many.7z'; dialect: Dialect };
const chosen = process.env.RESPONSIVENESS_CASES?.split(',').map((name) => `many.${name}`);
const cases: Case[] = dialects().flatMap((dialect): Case[] =>
  chosen !== undefined
    ? chosen.map((archive) => ({ archive: archive as Case['archive'], dialect }))
    : [{ archive: 'many.zip', dialect }, ...(dialect === 'sqlite' ? (['many.tar', 'many.7z'] as const).map((archive) => ({ archive, dialect })) : [])],
);

// bsdtar writes the 100,001 entries from an mtree description, each naming one small file for its
// bytes: far faster than creating 100,001 files first. The tar is ustar, from the same description.
let scratch: string;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-many-'));
  fs.writeFileSync(path.join(scratch, 'entry.txt'), 'a tiny entry\n');
  const lines = Array.from({ length: ENTRIES }, (_, i) => `n${String(i).padStart(6, '0')}.txt type=file mode=0644 contents=entry.txt`);
  fs.writeFileSync(path.join(scratch, 'spec.mtree'), `#mtree\n${lines.join('\n')}\n`);
  const wanted = new Set(cases.map((c) => c.archive));
  if (wanted.has('many.zip')) execFileSync('bsdtar', ['--format', 'zip', '-cf', 'many.zip', '@spec.mtree'], { cwd: scratch });
  if (wanted.has('many.tar')) execFileSync('bsdtar', ['--format', 'ustar', '-cf', 'many.tar', '@spec.mtree'], { cwd: scratch });
  if (wanted.has('many.tar.gz')) execFileSync('bsdtar', ['--format', 'ustar', '-czf', 'many.tar.gz', '@spec.mtree'], { cwd: scratch });
  // One solid LZMA block of 100,001 entries (27 KB): 7-Zip lists it and reads it whole.
  if (wanted.has('many.7z')) execFileSync('bsdtar', ['--format', '7zip', '-cf', 'many.7z', '@spec.mtree'], { cwd: scratch });
}, 300_000);
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe.each(cases)('processing $archive of 100,001 entries on $dialect', ({ archive, dialect }) => {
  it('keeps answering within ~200 ms and its memory bounded', async () => {
    const database = await createTestDatabase(dialect);
    const server = await startBundledServer({ DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, ...ADMIN });
    try {
      const api = `${server.url}/api/v1`;
      const token = await login(api, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD);
      const project = (await call(`${api}/study-petitions`, { token, json: { name: 'Many' } })).body.data[0];
      const answer = await upload(api, token, { name: archive, data: fs.readFileSync(path.join(scratch, archive)) }, project.id);
      expect(answer.status).toBe(201);
      const baselineRss = peakRssBytes(server.child.pid!);
      const cpuBefore = cpuSeconds(server.child.pid!);

      // Probe the API every ~50 ms while the job runs; each probe's wait is what a user would feel.
      const waits: number[] = [];
      let status = 'pending';
      let file: { processing: { status: string; summary: { other: number; skipped: number; skipped_reasons: Record<string, number> } } } | undefined;
      const end = Date.now() + 600_000;
      let lastList = 0;
      while (status !== 'ready' && status !== 'failed' && Date.now() < end) {
        const started = performance.now();
        const health = await fetch(`${api}/health`);
        waits.push(performance.now() - started);
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
      const peak = peakRssBytes(server.child.pid!);
      const cpu = cpuSeconds(server.child.pid!) - cpuBefore;
      const worst = Math.max(...waits);
      const typical = percentile(waits, 95);
      const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
      console.log(
        `[${archive} ${dialect}] ${waits.length} probes, server CPU ${cpu.toFixed(1)} s, wait p95 ${typical.toFixed(0)} ms, worst ${worst.toFixed(0)} ms, contents page ${contentsMs.toFixed(0)} ms, ` +
          `peak RSS ${mb(peak)} MB (${mb(baselineRss)} MB before processing), load ${os.loadavg()[0]!.toFixed(1)}`,
      );

      expect(status).toBe('ready');
      expect(file!.processing.summary).toMatchObject({ other: 100_000, skipped: 1, skipped_reasons: { 'too many entries': 1 } });
      expect(contents.status).toBe(200);
      expect(contents.body.data.page.total).toBe(100_000);
      expect(contents.body.data.entries).toHaveLength(100);
      expect(typical).toBeLessThan(TYPICAL_WAIT_MS);
      expect(worst).toBeLessThan(WORST_WAIT_MS);
      expect(peak).toBeLessThan(PEAK_RSS_BYTES);
      expect(peak - baselineRss).toBeLessThan(PROCESSING_GROWTH_BYTES);
    } finally {
      server.child.kill('SIGTERM');
      await server.waitForExit();
      await server.cleanup();
      await database.drop();
    }
  }, 900_000);
});
