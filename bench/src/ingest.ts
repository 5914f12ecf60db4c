// Benchmark of issue 4 item 7: processUpload on a zip of ≥2,000 real-looking DICOM instances, beside
// `bsdtar -xf` of the same zip in the same run. Prints times, their ratio and peak RSS.
// Usage: npx tsx bench/src/ingest.ts [--instances 2000] [--dir /tmp/ingest-bench] [--deflate]
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { processUpload } from '../../server/src/processing/process-upload.js';

const run = promisify(execFile);
const sh = (command: string, cwd: string) => run('sh', ['-c', command], { cwd, maxBuffer: 64 << 20 });

function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

/** A real enhanced CT (2 frames of 512×512×16 bit, ~1 MB) given new UIDs per file by dcmtk. */
const SOURCE = '/work/shared/dicom/s08_CT_enhanced_eCT_Supplemental.dcm';

async function generate(dir: string, instances: number, deflate: boolean): Promise<string> {
  const zip = path.join(dir, `study-${instances}${deflate ? '-deflate' : ''}.zip`);
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
  await sh(`bsdtar --format zip ${options} -cf '${zip}' study && rm -rf study`, dir);
  return zip;
}

async function timeBsdtar(zip: string, dir: string): Promise<{ seconds: number; rssMb: number }> {
  const out = path.join(dir, 'bsdtar-out');
  await rm(out, { recursive: true, force: true });
  await mkdir(out);
  const { stderr } = await run('/usr/bin/time', ['-f', '%e %M', 'bsdtar', '-xf', zip, '-C', out]);
  await rm(out, { recursive: true, force: true });
  const [seconds, kb] = stderr.trim().split('\n').pop()!.split(' ').map(Number);
  return { seconds: seconds!, rssMb: kb! / 1024 };
}

/** Runs in a child process so its peak RSS (main thread and the 7-Zip worker) is its own. */
async function child(zip: string, workDir: string): Promise<void> {
  await mkdir(workDir, { recursive: true });
  const started = process.hrtime.bigint();
  let entries = 0;
  const result = await processUpload({ inputPath: zip, originalName: path.basename(zip), workDir }, () => {
    entries += 1;
    return Promise.resolve();
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(JSON.stringify({ seconds, entries, summary: result.summary, status: result.status, rssMb: process.resourceUsage().maxRSS / 1024 }));
}

async function main(): Promise<void> {
  if (process.argv.includes('--child')) return child(arg('child', ''), arg('work', ''));
  const dir = arg('dir', path.join(tmpdir(), 'ingest-bench'));
  const instances = Number(arg('instances', '2000'));
  await mkdir(dir, { recursive: true });
  const zip = await generate(dir, instances, process.argv.includes('--deflate'));
  const { stdout: size } = await sh(`stat -c %s '${zip}'`, dir);
  const bsdtar = await timeBsdtar(zip, dir);
  const self = fileURLToPath(import.meta.url);
  const { stdout } = await run(process.execPath, ['--import', 'tsx', self, '--child', zip, '--work', path.join(dir, 'work')], {
    maxBuffer: 64 << 20,
  });
  const ingest = JSON.parse(stdout.trim().split('\n').pop()!) as { seconds: number; entries: number; rssMb: number; status: string };
  console.log(`zip: ${zip} (${(Number(size) / 1e9).toFixed(2)} GB, ${instances} instances)`);
  console.log(`bsdtar -xf:    ${bsdtar.seconds.toFixed(2)} s, peak RSS ${bsdtar.rssMb.toFixed(0)} MB`);
  console.log(`processUpload: ${ingest.seconds.toFixed(2)} s, peak RSS ${ingest.rssMb.toFixed(0)} MB, ${ingest.entries} entries, ${ingest.status}`);
  console.log(`time ratio (ingest / bsdtar): ${(ingest.seconds / bsdtar.seconds).toFixed(2)}×  (target ≤ 1.5×, RSS < 300 MB)`);
}

await main();
