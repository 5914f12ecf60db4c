// Benchmark of issue 4 item 7: the processing job, end to end (extraction, DICOM headers, entries
// moved into storage and recorded in SQLite, the upload's summary) on a zip of ≥2,000 real-looking
// DICOM instances, beside `bsdtar -xf` of the same zip in the same run. The upload itself is not
// timed. Prints times, their ratio and peak RSS.
// Usage: npx tsx bench/src/ingest.ts [--instances 2000] [--dir /tmp/ingest-bench] [--deflate | --tar] [--s3]
// --tar: the same instances in a ustar tar instead of a zip (the native tar path).
// --s3 (or S3_BUCKET set): the job runs a second time storing in S3 (s3-settings.ts), where it
// first downloads the upload into the local work area; both are printed.
import { execFile } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { buildIngestChild } from './ingest-build.js';
import { s3Target, withoutS3 } from './s3-settings.js';

const run = promisify(execFile);
const sh = (command: string, cwd: string) => run('sh', ['-c', command], { cwd, maxBuffer: 64 << 20 });

function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

/** A real enhanced CT (2 frames of 512×512×16 bit, ~1 MB) given new UIDs per file by dcmtk. */
const SOURCE = '/work/shared/dicom/s08_CT_enhanced_eCT_Supplemental.dcm';
const FIXTURES = fileURLToPath(new URL('../../server/test/fixtures/dicom', import.meta.url));

async function generate(dir: string, instances: number, deflate: boolean, tar: boolean): Promise<string> {
  const zip = path.join(dir, tar ? `study-${instances}.tar` : `study-${instances}${deflate ? '-deflate' : ''}.zip`);
  if (existsSync(zip)) return zip;
  const series = path.join(dir, 'study');
  await rm(series, { recursive: true, force: true });
  const perSeries = 200;
  for (let s = 0; s * perSeries < instances; s += 1) {
    const folder = path.join(series, `series${s}`);
    await mkdir(folder, { recursive: true });
    const count = Math.min(perSeries, instances - s * perSeries);
    await sh(`for i in $(seq ${count}); do cp '${SOURCE}' im$i.dcm; done && chmod u+w *.dcm && dcmodify -nb -q -gin *.dcm`, folder);
  }
  const options = deflate ? '' : '--options zip:compression=store';
  await sh(`bsdtar ${tar ? '--format ustar' : `--format zip ${options}`} -cf '${zip}' study && rm -rf study`, dir);
  return zip;
}

/**
 * bsdtar's output is left in place until the job has run too: on this machine's ext4 (no journal)
 * creating files soon after deleting thousands costs extra kernel time, which would fall on the job.
 */
async function timeBsdtar(zip: string, dir: string): Promise<{ seconds: number; syncSeconds: number; rssMb: number; out: string }> {
  const out = path.join(dir, 'bsdtar-out');
  await rm(out, { recursive: true, force: true });
  await mkdir(out);
  const { stderr } = await run('/usr/bin/time', ['-f', '%e %M', 'bsdtar', '-xf', zip, '-C', out]);
  // What it takes to make bsdtar's output as durable as the job's (which syncs before 'ready').
  const syncStarted = process.hrtime.bigint();
  await run('sync', ['-f', out]);
  const syncSeconds = Number(process.hrtime.bigint() - syncStarted) / 1e9;
  const [seconds, kb] = stderr.trim().split('\n').pop()!.split(' ').map(Number);
  return { seconds: seconds!, syncSeconds, rssMb: kb! / 1024, out };
}

/** The warm-up upload: the test suite's DICOM fixtures in a zip, a few MB. */
async function warmUpZip(dir: string): Promise<string> {
  const zip = path.join(dir, 'warm-up.zip');
  if (!existsSync(zip)) await sh(`bsdtar --format zip -cf '${zip}' -C '${FIXTURES}' .`, dir);
  return zip;
}

interface IngestFigures {
  seconds: number;
  flushSeconds: number;
  entries: number;
  rssMb: number;
  status: string;
  summary: string;
}

async function main(): Promise<void> {
  const dir = arg('dir', path.join(tmpdir(), 'ingest-bench'));
  const instances = Number(arg('instances', '2000'));
  await mkdir(dir, { recursive: true });
  const zip = await generate(dir, instances, process.argv.includes('--deflate'), process.argv.includes('--tar'));
  const { stdout: size } = await sh(`stat -c %s '${zip}'`, dir);
  const bsdtar = await timeBsdtar(zip, dir);
  const childScript = await buildIngestChild();
  const runChild = async (storageEnv: Record<string, string>) => {
    const { stdout } = await run(process.execPath, [childScript, '--zip', zip, '--warm', await warmUpZip(dir), '--work', path.join(dir, 'data')], {
      maxBuffer: 64 << 20,
      env: { ...withoutS3(process.env), ...storageEnv },
    });
    return JSON.parse(stdout.trim().split('\n').pop()!) as IngestFigures;
  };
  const ingest = await runChild({});
  const s3 = process.argv.includes('--s3') || process.env.S3_BUCKET ? await s3Target() : undefined;
  let inS3: IngestFigures | undefined;
  try {
    if (s3) inS3 = await runChild(s3.env);
  } finally {
    await s3?.close();
  }
  await rm(bsdtar.out, { recursive: true, force: true });
  const f = (n: number) => n.toFixed(2);
  console.log(`archive: ${zip} (${(Number(size) / 1e9).toFixed(2)} GB, ${instances} instances)`);
  console.log(`bsdtar -xf:    ${f(bsdtar.seconds)} s (+ ${f(bsdtar.syncSeconds)} s for sync -f of its output), peak RSS ${bsdtar.rssMb.toFixed(0)} MB`);
  console.log(`ingest job:    ${f(ingest.seconds)} s (of which ${f(ingest.flushSeconds)} s the final sync), peak RSS ${ingest.rssMb.toFixed(0)} MB, ${ingest.entries} entries, ${ingest.status} ${ingest.summary}`);
  if (inS3 && s3) {
    console.log(`ingest job, S3: ${f(inS3.seconds)} s (the upload downloaded to the work area first; ${s3.where}), peak RSS ${inS3.rssMb.toFixed(0)} MB, ${inS3.entries} entries, ${inS3.status} ${inS3.summary}`);
  }
  console.log(`time ratio (ingest / bsdtar -xf): ${f(ingest.seconds / bsdtar.seconds)}×  (target ≤ 1.5×, RSS < 300 MB)`);
  console.log(`durable to durable ((ingest) / (bsdtar -xf + sync)): ${f(ingest.seconds / (bsdtar.seconds + bsdtar.syncSeconds))}×`);
  console.log(`before the sync ((ingest - final sync) / bsdtar -xf): ${f((ingest.seconds - ingest.flushSeconds) / bsdtar.seconds)}×`);
}

await main();
