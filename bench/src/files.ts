// Many-small-files benchmark (issue 14): the same N small DICOM instances (default 2,000 copies of
// the shared small CT slice, each with its own SOP Instance UID) sent to the bundled portal, each
// way on a fresh SQLite DATA_DIR, timed from the first request until every row is 'ready':
//   delivery  one delivery as the web app sends a folder: its files in tar bundles (planBundles), each by tus, then POST /deliveries/{id}/complete
//   single    one multipart upload (the spec's route) per file, 4 in flight
//   zip       one stored zip (`zip -0`) of the same files
// and Orthanc (the Debian package) storing the same files, one POST /instances each, 4 in flight.
// Targets: delivery within 1.5× of zip; single faster per file than Orthanc.
//
// Environment:
//   BENCH_FILES_COUNT=2000          how many files
//   BENCH_FILES_CASES=delivery,single,zip,orthanc
//   BENCH_FILES_IN_FLIGHT=4         uploads (bundles) in flight for the delivery, as the web app
//   BENCH_RUNS=1                    rounds (the order rotates from round to round)
//   BENCH_FILES_CACHE=/path         where the generated files are kept between runs (default: OS temp dir)
//   BENCH_DIR=/path                 where the portals' DATA_DIRs go (default: OS temp dir)
//   BENCH_SERVER_FLAGS="--cpu-prof" Node flags for the portal (profiling), BENCH_CHILD_LOG=1 its output
//   BENCH_THREADS=1                 the portal's CPU by thread, while sending and in all
// Exits 1 when a target is missed.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { prepareFileSet } from './files-input.js';
import { measureOrthanc } from './files-orthanc.js';
import { measurePortalCase, type CaseResult, type PortalCase } from './files-portal.js';
import { median } from './upload-report.js';

const CASES = ['delivery', 'single', 'zip', 'orthanc'] as const;
type CaseName = (typeof CASES)[number];

const SOURCE = '/work/shared/dicom/s01_CT_small.dcm';
const DELIVERY_VS_ZIP_TARGET = 1.5;
const SINGLE_VS_ORTHANC_TARGET = 1;

function readSettings(env: NodeJS.ProcessEnv) {
  const count = Number(env.BENCH_FILES_COUNT ?? '2000');
  if (!Number.isInteger(count) || count <= 0) throw new Error(`BENCH_FILES_COUNT must be a positive whole number, got ${env.BENCH_FILES_COUNT}`);
  const cases = (env.BENCH_FILES_CASES ?? CASES.join(',')).split(',').map((s) => s.trim());
  const unknown = cases.filter((c) => !(CASES as readonly string[]).includes(c));
  if (cases.length === 0 || unknown.length > 0) throw new Error(`BENCH_FILES_CASES takes ${CASES.join(', ')}; got ${unknown.join(', ')}`);
  const inFlight = Number(env.BENCH_FILES_IN_FLIGHT ?? '4');
  if (!Number.isInteger(inFlight) || inFlight <= 0) throw new Error(`BENCH_FILES_IN_FLIGHT must be a positive whole number, got ${env.BENCH_FILES_IN_FLIGHT}`);
  const runs = Number(env.BENCH_RUNS ?? '1');
  if (!Number.isInteger(runs) || runs <= 0) throw new Error(`BENCH_RUNS must be a positive whole number, got ${env.BENCH_RUNS}`);
  return { count, cases: cases as CaseName[], inFlight, runs, cache: env.BENCH_FILES_CACHE ?? path.join(os.tmpdir(), 'portal-bench-files'), workDir: env.BENCH_DIR ?? os.tmpdir() };
}

/**
 * Makes ext4 place each case's DATA_DIR, a folder made in `dir`, in a block group chosen afresh,
 * as it places top-level folders (chattr's top-directory flag, for the Orlov allocator). On this
 * machine kind's disk (ext4 without a journal), a file created in a group where many files were
 * deleted (earlier cases and runs of this benchmark, in /tmp) went through ext4's check of
 * recently deleted inodes (fs/ext4/ialloc.c, recently_deleted()) and took 0.65–0.87 ms, against
 * 0.05 ms in a fresh group: the benchmark measured its own cleanup, the portal's more than
 * Orthanc's (docs/performance.md, "A benchmark slowed by its own cleanup"). Elsewhere chattr fails,
 * and nothing changes.
 */
async function placeCasesApart(dir: string): Promise<void> {
  await promisify(execFile)('chattr', ['+T', dir]).catch(() => undefined);
}

const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

async function main(): Promise<number> {
  const settings = readSettings(process.env);
  const repoRoot = path.resolve(import.meta.dirname, '..', '..');
  const files = await prepareFileSet(settings.cache, SOURCE, settings.count);
  const workDir = await mkdtemp(path.join(settings.workDir, 'portal-bench-files-'));
  await placeCasesApart(workDir);
  process.once('SIGINT', () => void rm(workDir, { recursive: true, force: true }).finally(() => process.exit(130)));
  console.log(
    `files benchmark: ${files.names.length} files, ${(files.bytes / 1e6).toFixed(1)} MB (zip ${(files.zip.bytes / 1e6).toFixed(1)} MB) from ${files.dir}; ` +
      `${settings.runs} round(s) of ${settings.cases.join(', ')}; delivery ${settings.inFlight} in flight; load ${loadAverage()}`,
  );
  const results = new Map<CaseName, CaseResult[]>(settings.cases.map((c) => [c, []]));
  try {
    for (let round = 0; round < settings.runs; round += 1) {
      const order = settings.cases.map((_, i) => settings.cases[(i + round) % settings.cases.length]!);
      for (const name of order) {
        // A name of its own each time: ext4 starts its search for a top-level folder's group at a
        // hash of the name, and the same name would lead it back to the group just emptied.
        const dir = await mkdtemp(path.join(workDir, `${name}-${round}-`));
        const result =
          name === 'orthanc'
            ? await measureOrthanc(files, dir, 4)
            : await measurePortalCase(name satisfies PortalCase, files, dir, repoRoot, { deliveryInFlight: settings.inFlight, singleInFlight: 4 });
        await rm(dir, { recursive: true, force: true });
        results.get(name)!.push(result);
        console.log(
          `round ${round + 1} ${name}: ${result.seconds.toFixed(1)} s (sent in ${result.uploadSeconds.toFixed(1)} s), ` +
            `${(files.names.length / result.seconds).toFixed(0)} files/s, server CPU ${result.serverCpuSeconds.toFixed(1)} s ` +
            `(${((result.serverCpuSeconds / files.names.length) * 1000).toFixed(2)} ms/file` +
            `${result.sendCpuSeconds === undefined ? '' : `; ${((result.sendCpuSeconds / files.names.length) * 1000).toFixed(2)} ms/file while sending`}), client CPU ${result.clientCpuSeconds.toFixed(1)} s, peak RSS ${(result.peakRssBytes / 1e6).toFixed(0)} MB; load ${loadAverage()}`,
        );
      }
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  return report(results, files.names.length);
}

function report(results: Map<CaseName, CaseResult[]>, count: number): number {
  const seconds = (name: CaseName) => {
    const runs = results.get(name);
    return runs === undefined || runs.length === 0 ? undefined : median(runs.map((r) => r.seconds));
  };
  const ratio = (a: CaseName, b: CaseName) => {
    const x = seconds(a);
    const y = seconds(b);
    return x === undefined || y === undefined ? undefined : x / y;
  };
  // Server CPU, which a machine shared with other work distorts less than seconds do.
  const cpuRatio = (a: CaseName, b: CaseName) => {
    const [x, y] = [a, b].map((name) => {
      const runs = results.get(name);
      return runs === undefined || runs.length === 0 ? undefined : median(runs.map((r) => r.serverCpuSeconds));
    });
    return x === undefined || y === undefined ? undefined : x / y;
  };
  const deliveryVsZip = ratio('delivery', 'zip');
  const singleVsOrthanc = ratio('single', 'orthanc');
  const header = ['case', 'runs', 'seconds', 'sent in s', 'files/s', 'ratio', 'server CPU s', 'CPU ratio', 'client CPU s', 'peak RSS MB'];
  const rows = [...results].map(([name, runs]) => {
    const s = seconds(name)!;
    const compared = name === 'delivery' ? deliveryVsZip : name === 'single' ? singleVsOrthanc : undefined;
    const cpuCompared = name === 'delivery' ? cpuRatio('delivery', 'zip') : name === 'single' ? cpuRatio('single', 'orthanc') : undefined;
    const against = name === 'delivery' ? 'zip' : 'orthanc';
    return [
      name,
      String(runs.length),
      s.toFixed(1),
      median(runs.map((r) => r.uploadSeconds)).toFixed(1),
      (count / s).toFixed(0),
      compared === undefined ? '' : `${compared.toFixed(2)} × ${against}`,
      median(runs.map((r) => r.serverCpuSeconds)).toFixed(1),
      cpuCompared === undefined ? '' : `${cpuCompared.toFixed(2)} × ${against}`,
      median(runs.map((r) => r.clientCpuSeconds)).toFixed(1),
      (Math.max(...runs.map((r) => r.peakRssBytes)) / 1e6).toFixed(0),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(`\n${[line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n')}`);
  console.log(`load ${loadAverage()}`);
  const verdicts = [
    deliveryVsZip === undefined ? null : `delivery ≤ ${DELIVERY_VS_ZIP_TARGET} × zip: ${deliveryVsZip <= DELIVERY_VS_ZIP_TARGET ? 'ok' : 'MISSED'}`,
    singleVsOrthanc === undefined ? null : `single ≤ ${SINGLE_VS_ORTHANC_TARGET} × Orthanc: ${singleVsOrthanc <= SINGLE_VS_ORTHANC_TARGET ? 'ok' : 'MISSED'}`,
  ].filter((v) => v !== null);
  for (const verdict of verdicts) console.log(`target ${verdict}`);
  return verdicts.some((v) => v.endsWith('MISSED')) ? 1 : 0;
}

process.exitCode = await main();
