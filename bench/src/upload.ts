// Upload benchmark (issues 3 and 13): for each size, the same file goes over loopback to the bare
// Node pipe (the baseline, upload-baseline.ts) and to the real portal by each of its upload paths,
// each run in a fresh server process, on the same disk, in rounds whose order rotates so that no
// path always runs first. The table gives medians and ranges; see upload-report.ts for the targets.
//
// Environment:
//   BENCH_SIZES_MB=1024,4096          sizes in MiB (default 1 GiB and 4 GiB)
//   BENCH_PATHS=pipe,multipart,tus    which paths (pipe-16k: the pipe with the old baseline's buffer)
//   BENCH_RUNS=3                      rounds per size
//   BENCH_TUS_CHUNK_MB=64             tus chunk size in MiB (default: what the portal tells the web app,
//                                     GET /upload-settings: UPLOAD_CHUNK_BYTES from this environment,
//                                     256 MiB unless set)
//   BENCH_RESUME=1                    with tus: also cut one tus upload mid-chunk, resume it, count
//                                     the bytes that reached the server (0: skip)
//   BENCH_DIR=/path                   where the inputs and stored copies go (default: the OS temp dir)
//   BENCH_PIPE_NODE=/usr/bin/node     run the pipe on another Node binary
//   BENCH_SERVER_FLAGS="--cpu-prof"   Node flags for the portal (profiling), BENCH_CHILD_LOG=1 its output
//   S3_BUCKET, S3_ENDPOINT, …         the bucket the multipart-s3 and tus-s3 paths store in (every
//                                     S3_* setting of docs/configuration.md); unset, those paths start
//                                     an s3rver on loopback in this process. The other paths never
//                                     see S3_* settings.
// Exits 1 when a portal path missed a target.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { OLD_HIGH_WATER_MARK, measurePipe, PIPE_HIGH_WATER_MARK } from './upload-baseline.js';
import { writeInputFile, type InputFile } from './upload-input.js';
import { uploadMultipart } from './upload-multipart.js';
import { measurePortal, type StorageEnv } from './upload-portal.js';
import { s3Target } from './s3-settings.js';
import {
  formatResume,
  formatTable,
  meetsTargets,
  mibPerSecond,
  resumeMeetsTarget,
  type Measurement,
  type PathName,
  type SizeResult,
  S3_PATHS,
} from './upload-report.js';
import { measureResume } from './upload-resume.js';
import { uploadTus } from './upload-tus.js';

const PATHS: readonly PathName[] = ['pipe', 'pipe-16k', 'multipart', 'tus', 'multipart-s3', 'tus-s3'];

interface Settings {
  sizesMiB: number[];
  paths: PathName[];
  runs: number;
  /** Unset: each portal's own (GET /upload-settings), as the web app asks it. */
  tusChunkBytes: number | undefined;
  resume: boolean;
  workDir: string | undefined;
}

function readSettings(env: NodeJS.ProcessEnv): Settings {
  const sizes = (env.BENCH_SIZES_MB ?? '1024,4096').split(',').map((s) => Number(s.trim()));
  if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n <= 0)) {
    throw new Error(`BENCH_SIZES_MB must be a comma-separated list of positive whole MiB, got ${env.BENCH_SIZES_MB}`);
  }
  const paths = (env.BENCH_PATHS ?? 'pipe,multipart,tus').split(',').map((s) => s.trim());
  const unknown = paths.filter((p) => !PATHS.includes(p as PathName));
  if (paths.length === 0 || unknown.length > 0) throw new Error(`BENCH_PATHS takes ${PATHS.join(', ')}; got ${unknown.join(', ')}`);
  const runs = Number(env.BENCH_RUNS ?? '3');
  if (!Number.isInteger(runs) || runs <= 0) throw new Error(`BENCH_RUNS must be a positive whole number, got ${env.BENCH_RUNS}`);
  const chunkMiB = env.BENCH_TUS_CHUNK_MB === undefined ? undefined : Number(env.BENCH_TUS_CHUNK_MB);
  if (chunkMiB !== undefined && !(chunkMiB > 0)) throw new Error(`BENCH_TUS_CHUNK_MB must be a positive number of MiB, got ${env.BENCH_TUS_CHUNK_MB}`);
  return {
    sizesMiB: sizes,
    paths: paths as PathName[],
    runs,
    tusChunkBytes: chunkMiB === undefined ? undefined : Math.round(chunkMiB * 1024 * 1024),
    resume: paths.includes('tus') && env.BENCH_RESUME !== '0',
    workDir: env.BENCH_DIR,
  };
}

function measure(name: PathName, input: InputFile, dir: string, repoRoot: string, settings: Settings, s3: StorageEnv): Promise<Measurement> {
  switch (name) {
    case 'pipe':
      return measurePipe(input, dir, PIPE_HIGH_WATER_MARK);
    case 'pipe-16k':
      return measurePipe(input, dir, OLD_HIGH_WATER_MARK);
    case 'multipart':
      return measurePortal(input, dir, repoRoot, (portal) => uploadMultipart(portal, input));
    case 'tus':
      return measurePortal(input, dir, repoRoot, (portal) => uploadTus(portal, input, settings.tusChunkBytes));
    case 'multipart-s3':
      return measurePortal(input, dir, repoRoot, (portal) => uploadMultipart(portal, input), s3);
    case 'tus-s3':
      return measurePortal(input, dir, repoRoot, (portal) => uploadTus(portal, input, settings.tusChunkBytes), s3);
  }
}

async function main(): Promise<number> {
  const settings = readSettings(process.env);
  const repoRoot = path.resolve(import.meta.dirname, '..', '..');
  const workDir = await mkdtemp(path.join(settings.workDir ?? os.tmpdir(), 'portal-bench-'));
  const results: SizeResult[] = [];
  const removeWorkDir = () => rm(workDir, { recursive: true, force: true });
  const onSignal = () => void removeWorkDir().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  console.log(`upload benchmark in ${workDir}; ${settings.runs} round(s) of ${settings.paths.join(', ')}; load ${loadAverage()}`);
  const s3 = settings.paths.some((p) => S3_PATHS.includes(p)) ? await s3Target() : undefined;
  if (s3) console.log(`S3 paths store in the ${s3.where}`);
  try {
    for (const sizeMiB of settings.sizesMiB) {
      const input = await writeInputFile(path.join(workDir, `input-${sizeMiB}.dcm`), sizeMiB * 1024 * 1024);
      const result: SizeResult = { sizeBytes: input.bytes, runs: new Map(settings.paths.map((p) => [p, []])) };
      try {
        for (let round = 0; round < settings.runs; round += 1) {
          // Rotated, so that each path runs first in some round (the first run after writing the
          // input, and after a cold start, is not like the others).
          const order = settings.paths.map((_, i) => settings.paths[(i + round) % settings.paths.length]!);
          for (const name of order) {
            const dir = path.join(workDir, `${name}-${sizeMiB}-${round}`);
            const m = await measure(name, input, dir, repoRoot, settings, s3?.env ?? {});
            await rm(dir, { recursive: true, force: true });
            result.runs.get(name)!.push(m);
            console.log(
              `${sizeMiB} MiB round ${round + 1} ${name}: ${mibPerSecond(m).toFixed(0)} MiB/s, ` +
                `peak RSS ${(m.peakRssBytes / 1e6).toFixed(0)} MB, server CPU ${m.serverCpuSeconds.toFixed(1)} s (main thread ${m.serverMainCpuSeconds.toFixed(1)} s), ` +
                `client CPU ${m.clientCpuSeconds.toFixed(1)} s, answered ${m.tailSeconds.toFixed(2)} s after the last byte; load ${loadAverage()}`,
            );
            if (m.serverThreadCpuSeconds) {
              const threads = [...m.serverThreadCpuSeconds].map(([thread, s]) => `${thread} ${s.toFixed(2)} s`);
              console.log(`  server CPU by thread: ${threads.join(', ')}`);
            }
          }
        }
        if (settings.resume) {
          const dir = path.join(workDir, `resume-${sizeMiB}`);
          result.resume = await measureResume(input, dir, repoRoot, settings.tusChunkBytes);
          await rm(dir, { recursive: true, force: true });
        }
        results.push(result);
      } finally {
        await rm(input.path, { force: true });
      }
    }
  } finally {
    await s3?.close();
    await removeWorkDir();
  }
  console.log(`\n${formatTable(results)}`);
  for (const line of formatResume(results)) console.log(line);
  console.log('targets: multipart and tus ≥ 0.90 of the pipe (median of the per-round ratios), peak RSS < 200 MB (10^6 bytes),');
  console.log('         a resumed tus upload re-sends at most one chunk');
  const missed = results.some((r) => settings.paths.some((p) => meetsTargets(r, p) === false) || resumeMeetsTarget(r) === false);
  return missed ? 1 : 0;
}

const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

process.exitCode = await main();
