// De-identification engine benchmark (issue 33, item 8): instances per second of @portal/deid on N
// CT slices (default 2,000 copies of the shared small CT slice, each with its own SOP Instance UID
// by dcmtk's `dcmodify -gin`, the same cache as bench:files), each engine run over all of them per
// round, median over rounds; the first round of each engine is a warm-up and not counted.
// Engines: node (in this process, the files read into memory first), chromium (the web app's own
// Web Worker in Debian's Chromium, the files held by the page as Blobs: deid-chromium.ts) and
// orthanc (the baseline: Orthanc's own POST /studies/{id}/anonymize on the same files, uploaded
// once beforehand); the ratio engine/Orthanc per instance is printed (target >= 1). Chromium's
// output must equal the Node engine's byte for byte (the engine is deterministic), and its memory
// must stay flat over the rounds (isFlat: what its processes retain after a garbage collection at the
// end of the last round against the first counted one's; the peaks are printed beside it).
// Exits 1 when a target is missed.
//
// Environment:
//   BENCH_DEID_COUNT=2000           how many instances
//   BENCH_DEID_SOURCE=/path.dcm     the instance copied (default: the shared small CT slice)
//   BENCH_DEID_OPTIONS=a,b          de-identification options (default: none, the Basic profile)
//   BENCH_RUNS=3                    counted rounds per engine
//   BENCH_FILES_CACHE=/path         where the generated files are kept between runs (default: OS temp dir)
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { deidentify, normaliseOptions, type Policy } from '@portal/deid';
import { FLAT_RULE, isFlat, startChromiumEngine } from './deid-chromium.js';
import { startOrthancWith } from './deid-orthanc.js';
import { prepareFileSet } from './files-input.js';
import { median } from './upload-report.js';

interface Round { seconds: number; cpuSeconds: number; peakRssBytes?: number; retainedBytes?: number; firstOutputSha256?: string }
interface Engine { name: string; run(files: Uint8Array[], policy: Policy, key: Uint8Array): Promise<Round>; stop?(): Promise<void> }

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const nodeEngine: Engine = {
  name: 'node',
  run(files, policy, key) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    let first: string | undefined;
    for (const file of files) {
      const out = deidentify(file, policy, key).bytes;
      first ??= sha256(out);
    }
    const used = process.cpuUsage(cpu);
    return Promise.resolve({ seconds: (performance.now() - start) / 1000, cpuSeconds: (used.user + used.system) / 1e6, ...(first ? { firstOutputSha256: first } : {}) });
  },
};

async function chromiumEngine(files: Uint8Array[]): Promise<Engine> {
  const browser = await startChromiumEngine(files);
  return {
    name: 'chromium',
    async run(_files, policy, key) { return { ...(await browser.run(policy, key)), cpuSeconds: Number.NaN }; },
    stop: () => browser.close(),
  };
}

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
  const counted = new Map<string, Round[]>();
  const engines: (() => Promise<Engine>)[] = [() => Promise.resolve(nodeEngine), () => chromiumEngine(files), () => orthancEngine(files)];
  for (const start of engines) {
    const engine = await start();
    try {
      await engine.run(files, policy, key);
      const rounds: Round[] = [];
      for (let i = 0; i < runs; i++) rounds.push(await engine.run(files, policy, key));
      const perSecond = rounds.map((r) => count / r.seconds);
      console.log([
        engine.name.padEnd(8),
        `${median(perSecond).toFixed(0)} instances/s (rounds ${perSecond.map((v) => v.toFixed(0)).join(', ')})`,
        `${((median(rounds.map((r) => r.seconds)) / count) * 1000).toFixed(2)} ms per instance`,
        Number.isNaN(rounds[0]?.cpuSeconds ?? Number.NaN) ? 'CPU (another process)' : `CPU ${median(rounds.map((r) => r.cpuSeconds)).toFixed(2)} s per round`,
      ].join('  '));
      medians.set(engine.name, median(perSecond));
      counted.set(engine.name, rounds);
    } finally {
      await engine.stop?.();
    }
  }
  const missed: string[] = [];
  const baseline = medians.get('orthanc') ?? Number.NaN;
  for (const [name, value] of medians) {
    if (name === 'orthanc') continue;
    const ratio = value / baseline;
    console.log(`${name}/orthanc per instance: ${ratio.toFixed(2)}× (target >= 1): ${ratio >= 1 ? 'ok' : 'MISSED'}`);
    if (!(ratio >= 1)) missed.push(`${name} slower than Orthanc`);
  }
  const browser = counted.get('chromium') ?? [];
  const nodeFirst = counted.get('node')?.[0]?.firstOutputSha256;
  const same = browser.every((r) => r.firstOutputSha256 === nodeFirst);
  console.log(`chromium output equals node's byte for byte: ${same ? 'yes' : 'NO'}`);
  if (!same) missed.push('the browser wrote other bytes');
  const peaks = browser.map((r) => r.peakRssBytes ?? 0);
  const kept = browser.map((r) => r.retainedBytes ?? 0);
  if (kept.length > 0) {
    const flat = isFlat(kept[0]!, kept[kept.length - 1]!);
    const mb = (values: number[]) => values.map((p) => `${(p / 1e6).toFixed(0)} MB`).join(', ');
    console.log(`chromium memory (PSS of its processes) per round: peak ${mb(peaks)}; after a garbage collection ${mb(kept)}; flat (${FLAT_RULE}, after collection): ${flat ? 'ok' : 'MISSED'}`);
    if (!flat) missed.push('the browser memory grew');
  }
  if (missed.length > 0) {
    console.log(`MISSED: ${missed.join('; ')}`);
    process.exitCode = 1;
  }
}

await main();
