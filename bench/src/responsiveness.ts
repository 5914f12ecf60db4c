// Responsiveness benchmark (issue 12 item 3, moved out of the test suite by issue 32): an upload of
// 100,001 tiny entries (a zip, a ustar tar, a 7z) is processed by the bundled server, started as
// `npm start` starts it, while this client asks GET /health every ~50 ms. Each probe's wait is what
// a user would feel; the server's peak resident set (VmHWM) is read from /proc.
// Targets (docs/processing.md, "Responsiveness"): 95 % of the probes within 200 ms and none over a
// second; peak RSS under 200 MB (10^6 bytes), and under 100 MB added by processing.
//
// Environment:
//   BENCH_RESPONSIVENESS_CASES=zip,tar,7z   archives (also tar.gz), each on a fresh SQLite DATA_DIR
//   BENCH_POSTGRES_URL=postgres://…/postgres  also the zip on PostgreSQL, in a database made for it
//   BENCH_DIR=/path                         where the archives and DATA_DIRs go (default: OS temp dir)
//   BENCH_SERVER_FLAGS, BENCH_CHILD_LOG=1   as for the other benchmarks
// Exits 1 when a target is missed. `npm run bench:responsiveness` builds the server first.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { jsonRequest, multipartFrame, streamRequest } from './upload-http.js';
import { cpuSeconds, peakRssBytes, stopChild } from './upload-process.js';
import { startPortal, type Portal } from './upload-portal.js';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRIES = 100_001;
const ARCHIVES = { zip: ['--format', 'zip'], tar: ['--format', 'ustar'], 'tar.gz': ['--format', 'ustar', '-z'], '7z': ['--format', '7zip'] } as const;
type ArchiveKind = keyof typeof ARCHIVES;

const TYPICAL_WAIT_MS = 200;
const WORST_WAIT_MS = 1000;
const PEAK_RSS_BYTES = 200e6;
const PROCESSING_GROWTH_BYTES = 100e6;

interface CaseResult {
  label: string;
  probes: number;
  p95Ms: number;
  worstMs: number;
  contentsMs: number;
  serverCpuSeconds: number;
  baselineRssBytes: number;
  peakRssBytes: number;
  load: number;
  processed: boolean;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/**
 * bsdtar writes the 100,001 entries from an mtree description, each naming one small file for its
 * bytes: far faster than creating 100,001 files first.
 */
async function makeArchive(dir: string, kind: ArchiveKind): Promise<string> {
  const spec = path.join(dir, 'spec.mtree');
  if (!(await stat(spec).catch(() => undefined))) {
    await writeFile(path.join(dir, 'entry.txt'), 'a tiny entry\n');
    const lines = Array.from({ length: ENTRIES }, (_, i) => `n${String(i).padStart(6, '0')}.txt type=file mode=0644 contents=entry.txt`);
    await writeFile(spec, `#mtree\n${lines.join('\n')}\n`);
  }
  const name = `many.${kind}`;
  await run('bsdtar', [...ARCHIVES[kind], '-cf', name, '@spec.mtree'], { cwd: dir });
  return path.join(dir, name);
}

async function sendArchive(portal: Portal, file: string): Promise<number> {
  const name = path.basename(file);
  const frame = multipartFrame({ studypetitionid: String(portal.projectId) }, { field: 'file', name, contentType: 'application/octet-stream' });
  const answer = await streamRequest(
    `${portal.base}/upload-study-petitions-files`,
    { 'content-type': frame.contentType, authorization: `Bearer ${portal.token}` },
    { before: frame.before, file, fileBytes: (await stat(file)).size, after: frame.after },
  );
  if (answer.status !== 201) throw new Error(`uploading ${name} answered ${answer.status}: ${answer.body.slice(0, 500)}`);
  return (JSON.parse(answer.body) as { data: { id: number }[] }).data[0]!.id;
}

type Processing = { status: string; summary: { other: number; skipped: number } };

async function processingOf(portal: Portal): Promise<Processing> {
  const list = await jsonRequest(`${portal.base}/study-petitions-files?study_petition_id=${portal.projectId}`, 'GET', undefined, portal.token);
  return (list.json as { data: { processing: Processing }[] }).data[0]!.processing;
}

async function measureCase(label: string, archive: string, dataDir: string, env: Record<string, string>): Promise<CaseResult> {
  const portal = await startPortal(dataDir, REPO_ROOT, 1024 ** 3, env);
  try {
    const fileId = await sendArchive(portal, archive);
    const pid = portal.child.pid;
    const baselineRssBytes = await peakRssBytes(pid);
    const cpuBefore = await cpuSeconds(pid);
    const waits: number[] = [];
    let processing = await processingOf(portal);
    let lastList = Date.now();
    const end = Date.now() + 600_000;
    while (processing.status !== 'ready' && processing.status !== 'failed' && Date.now() < end) {
      const started = performance.now();
      const health = await fetch(`${portal.base}/health`);
      waits.push(performance.now() - started);
      if (health.status !== 200) throw new Error(`GET /health answered ${health.status} while processing`);
      if (Date.now() - lastList > 1000) {
        lastList = Date.now();
        processing = await processingOf(portal);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The contents of such an upload are asked for too, as the web app does when it is opened.
    const started = performance.now();
    const contents = await jsonRequest(`${portal.base}/study-petitions-files/${fileId}/contents?offset=99900&limit=100`, 'GET', undefined, portal.token);
    const contentsMs = performance.now() - started;
    const page = (contents.json as { data?: { page: { total: number }; entries: unknown[] } } | undefined)?.data;
    const processed =
      processing.status === 'ready' && processing.summary.other === 100_000 && processing.summary.skipped === 1 && page?.page.total === 100_000 && page.entries.length === 100;
    return {
      label,
      probes: waits.length,
      p95Ms: percentile(waits, 95),
      worstMs: Math.max(...waits),
      contentsMs,
      serverCpuSeconds: (await cpuSeconds(pid)) - cpuBefore,
      baselineRssBytes,
      peakRssBytes: await peakRssBytes(pid),
      load: os.loadavg()[0]!,
      processed,
    };
  } finally {
    await stopChild(portal.child);
  }
}

function missed(r: CaseResult): string[] {
  return [
    ...(r.processed ? [] : ['not processed as expected (ready, 100,000 kept, 1 skipped, the last page listed)']),
    ...(r.p95Ms < TYPICAL_WAIT_MS ? [] : [`p95 wait ≥ ${TYPICAL_WAIT_MS} ms`]),
    ...(r.worstMs < WORST_WAIT_MS ? [] : [`worst wait ≥ ${WORST_WAIT_MS} ms`]),
    ...(r.peakRssBytes < PEAK_RSS_BYTES ? [] : [`peak RSS ≥ ${PEAK_RSS_BYTES / 1e6} MB`]),
    ...(r.peakRssBytes - r.baselineRssBytes < PROCESSING_GROWTH_BYTES ? [] : [`processing added ≥ ${PROCESSING_GROWTH_BYTES / 1e6} MB`]),
  ];
}

/** A database of its own for one PostgreSQL case, from the admin URL; `pg` is the server's driver. */
async function postgresDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const { default: pg } = await import('pg');
  const name = `portal_bench_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

async function main(): Promise<void> {
  const kinds = (process.env.BENCH_RESPONSIVENESS_CASES ?? 'zip,tar,7z').split(',').map((s) => s.trim());
  const unknown = kinds.filter((k) => !(k in ARCHIVES));
  if (unknown.length > 0) throw new Error(`BENCH_RESPONSIVENESS_CASES takes ${Object.keys(ARCHIVES).join(', ')}; got ${unknown.join(', ')}`);
  const postgresUrl = process.env.BENCH_POSTGRES_URL;
  const scratch = await mkdtemp(path.join(process.env.BENCH_DIR ?? os.tmpdir(), 'portal-bench-responsiveness-'));
  const results: CaseResult[] = [];
  try {
    for (const kind of kinds as ArchiveKind[]) {
      const archive = await makeArchive(scratch, kind);
      results.push(await measureCase(`${kind} on SQLite`, archive, path.join(scratch, `data-${kind}`), {}));
      console.log(format(results.at(-1)!));
      if (postgresUrl && kind === 'zip') {
        const database = await postgresDatabase(postgresUrl);
        try {
          results.push(await measureCase(`${kind} on PostgreSQL`, archive, path.join(scratch, `data-${kind}-pg`), { DATABASE_URL: database.url }));
          console.log(format(results.at(-1)!));
        } finally {
          await database.drop();
        }
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const failures = results.flatMap((r) => missed(r).map((m) => `${r.label}: ${m}`));
  console.log(
    `targets: p95 wait < ${TYPICAL_WAIT_MS} ms, worst < ${WORST_WAIT_MS} ms, peak RSS < ${PEAK_RSS_BYTES / 1e6} MB, processing adds < ${PROCESSING_GROWTH_BYTES / 1e6} MB: ` +
      (failures.length === 0 ? 'met' : `MISSED\n  ${failures.join('\n  ')}`),
  );
  if (failures.length > 0) process.exitCode = 1;
}

function format(r: CaseResult): string {
  const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
  return (
    `${r.label}: ${r.probes} probes, wait p95 ${r.p95Ms.toFixed(0)} ms (${(r.p95Ms / TYPICAL_WAIT_MS).toFixed(2)} of the target), ` +
    `worst ${r.worstMs.toFixed(0)} ms (${(r.worstMs / WORST_WAIT_MS).toFixed(2)}), contents page ${r.contentsMs.toFixed(0)} ms, server CPU ${r.serverCpuSeconds.toFixed(1)} s, ` +
    `peak RSS ${mb(r.peakRssBytes)} MB (${(r.peakRssBytes / PEAK_RSS_BYTES).toFixed(2)}; ${mb(r.baselineRssBytes)} MB before processing), load ${r.load.toFixed(1)}`
  );
}

await main();
