// Upload benchmark (issue 3): for each size, the same file is uploaded to a bare Node baseline and
// to the real portal over loopback, on the same disk, each in a fresh process; the table compares
// throughput and peak RSS. Targets: portal ≥ 75% of the baseline's throughput, peak RSS < 200 MB.
//
// Environment:
//   BENCH_SIZES_MB=1024,4096   sizes in MiB (default 1 GiB and 4 GiB)
//   BENCH_ONLY=baseline|portal|both   (default both)
//   BENCH_DIR=/path            where the inputs and stored copies go (default: a fresh dir in the OS temp dir)
//   BENCH_BASELINE_FSYNC=0     let the baseline answer before its bytes are durable (default 1)
// Exits 1 when the portal ran and missed a target.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { measureBaseline } from './upload-baseline.js';
import { writeInputFile } from './upload-input.js';
import { measurePortal } from './upload-portal.js';
import { formatTable, meetsTargets, type SizeResult } from './upload-report.js';

interface Settings {
  sizesMiB: number[];
  runBaseline: boolean;
  runPortal: boolean;
  workDir: string | undefined;
  baselineFsync: boolean;
}

function readSettings(env: NodeJS.ProcessEnv): Settings {
  const sizes = (env.BENCH_SIZES_MB ?? '1024,4096').split(',').map((s) => Number(s.trim()));
  if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n <= 0)) {
    throw new Error(`BENCH_SIZES_MB must be a comma-separated list of positive whole MiB, got ${env.BENCH_SIZES_MB}`);
  }
  const only = env.BENCH_ONLY ?? 'both';
  if (!['baseline', 'portal', 'both'].includes(only)) throw new Error(`BENCH_ONLY must be baseline, portal or both`);
  return {
    sizesMiB: sizes,
    runBaseline: only !== 'portal',
    runPortal: only !== 'baseline',
    workDir: env.BENCH_DIR,
    baselineFsync: env.BENCH_BASELINE_FSYNC !== '0',
  };
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
  console.log(`upload benchmark in ${workDir} (baseline fsync: ${settings.baselineFsync ? 'on' : 'off'})`);
  try {
    for (const sizeMiB of settings.sizesMiB) {
      const input = await writeInputFile(path.join(workDir, `input-${sizeMiB}.dcm`), sizeMiB * 1024 * 1024);
      try {
        const result: SizeResult = { sizeBytes: input.bytes };
        if (settings.runBaseline) {
          const dir = path.join(workDir, `baseline-${sizeMiB}`);
          result.baseline = await measureBaseline(input, dir, settings.baselineFsync);
          await rm(dir, { recursive: true, force: true });
          console.log(`${sizeMiB} MiB baseline: ${(input.bytes / 1e6 / result.baseline.seconds).toFixed(1)} MB/s`);
        }
        if (settings.runPortal) {
          const dir = path.join(workDir, `portal-${sizeMiB}`);
          result.portal = await measurePortal(input, dir, repoRoot);
          await rm(dir, { recursive: true, force: true });
          console.log(`${sizeMiB} MiB portal: ${(input.bytes / 1e6 / result.portal.seconds).toFixed(1)} MB/s`);
        }
        results.push(result);
      } finally {
        await rm(input.path, { force: true });
      }
    }
  } finally {
    await removeWorkDir();
  }
  console.log(`\n${formatTable(results)}`);
  console.log('targets: portal/baseline ≥ 0.75, portal peak RSS < 200 MB (MB = 10^6 bytes)');
  return results.some((r) => meetsTargets(r) === false) ? 1 : 0;
}

process.exitCode = await main();
