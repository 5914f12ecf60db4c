// De-identification engine benchmark (issue 33, item 8): instances per second of @portal/deid on N
// CT slices (default 2,000 copies of the shared small CT slice, each with its own SOP Instance UID
// by dcmtk's `dcmodify -gin`, the same cache as bench:files), each engine run over all of them per
// round, median over rounds; the first round of each engine is a warm-up and not counted.
// Engines: node (in this process, the files read into memory first) and orthanc (the baseline:
// Orthanc's own POST /studies/{id}/anonymize on the same files, uploaded once beforehand); the
// ratio engine/Orthanc per instance is printed (target >= 1). The browser run (Chromium, the same
// package in a Web Worker) is later work: one more entry in ENGINES.
//
// Environment:
//   BENCH_DEID_COUNT=2000           how many instances
//   BENCH_DEID_SOURCE=/path.dcm     the instance copied (default: the shared small CT slice)
//   BENCH_DEID_OPTIONS=a,b          de-identification options (default: none, the Basic profile)
//   BENCH_RUNS=3                    counted rounds per engine
//   BENCH_FILES_CACHE=/path         where the generated files are kept between runs (default: OS temp dir)
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { deidentify, normaliseOptions, type Policy } from '@portal/deid';
import { startOrthancWith } from './deid-orthanc.js';
import { prepareFileSet } from './files-input.js';
import { median } from './upload-report.js';

interface Round { seconds: number; cpuSeconds: number }
interface Engine { name: string; run(files: Uint8Array[], policy: Policy, key: Uint8Array): Promise<Round>; stop?(): Promise<void> }

const nodeEngine: Engine = {
  name: 'node',
  run(files, policy, key) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    let bytes = 0;
    for (const file of files) bytes += deidentify(file, policy, key).bytes.length;
    if (bytes === 0) throw new Error('the engine wrote nothing');
    const used = process.cpuUsage(cpu);
    return Promise.resolve({ seconds: (performance.now() - start) / 1000, cpuSeconds: (used.user + used.system) / 1e6 });
  },
};

// Orthanc applies its own default anonymisation, not our policy: the comparison is per instance.
async function orthancEngine(files: Uint8Array[]): Promise<Engine> {
  const orthanc = await startOrthancWith(files);
  return {
    name: 'orthanc',
    async run() { return { seconds: await orthanc.anonymise(), cpuSeconds: Number.NaN }; },
    stop: () => orthanc.stop(),
  };
}

async function main(): Promise<void> {
  const env = process.env;
  const count = Number(env.BENCH_DEID_COUNT ?? '2000');
  const runs = Number(env.BENCH_RUNS ?? '3');
  if (!Number.isInteger(count) || count <= 0 || !Number.isInteger(runs) || runs <= 0) throw new Error('BENCH_DEID_COUNT and BENCH_RUNS must be positive whole numbers');
  const source = env.BENCH_DEID_SOURCE ?? '/work/shared/dicom/s01_CT_small.dcm';
  const policy: Policy = { profile: 'basic', options: normaliseOptions((env.BENCH_DEID_OPTIONS ?? '').split(',').filter(Boolean)) };
  const key = new Uint8Array(32).map((_, i) => i * 7 + 1);

  const set = await prepareFileSet(env.BENCH_FILES_CACHE ?? path.join(os.tmpdir(), 'portal-bench-files'), source, count);
  const files = await Promise.all(set.names.map(async (n) => new Uint8Array(await readFile(path.join(set.dir, n)))));
  console.log(`${count} instances of ${path.basename(source)} (${(set.bytes / 1e6).toFixed(1)} MB), policy ${policy.options.join(', ') || 'basic'}, ${runs} rounds + 1 warm-up`);

  const medians = new Map<string, number>();
  for (const engine of [nodeEngine, await orthancEngine(files)]) {
    try {
    await engine.run(files, policy, key);
    const rounds: Round[] = [];
    for (let i = 0; i < runs; i++) rounds.push(await engine.run(files, policy, key));
    const perSecond = rounds.map((r) => count / r.seconds);
    console.log([
      engine.name.padEnd(8),
      `${median(perSecond).toFixed(0)} instances/s (rounds ${perSecond.map((v) => v.toFixed(0)).join(', ')})`,
      `${((median(rounds.map((r) => r.seconds)) / count) * 1000).toFixed(2)} ms per instance`,
      Number.isNaN(rounds[0]?.cpuSeconds ?? Number.NaN) ? "CPU (another process)" : `CPU ${median(rounds.map((r) => r.cpuSeconds)).toFixed(2)} s per round`,
    ].join('  '));
    medians.set(engine.name, median(perSecond));
    } finally {
      await engine.stop?.();
    }
  }
  const baseline = medians.get('orthanc') ?? Number.NaN;
  for (const [name, value] of medians) if (name !== 'orthanc') console.log(`${name}/orthanc per instance: ${(value / baseline).toFixed(2)}× (target >= 1)`);
}

await main();
