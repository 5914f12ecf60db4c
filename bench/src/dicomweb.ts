// DICOMweb benchmark (issue 34, item 5): the portal's QIDO-RS and WADO-RS against Orthanc with its
// DICOMweb plugin (Debian `orthanc` + `orthanc-dicomweb`) on the same data in the same run. The data:
// N instances (default 2,000 copies of the shared small CT slice, each its own SOP Instance UID)
// in studies of one series of M instances (default 200), stored in the portal with STOW-RS (one
// request per study) and in Orthanc with POST /instances, before anything is timed. Cases: QIDO of
// the studies, of the series, of one series' instances; WADO-RS of one whole series (multipart,
// every instance's bytes read to the end). Each round times every case on both servers, the order
// of the two alternating from round to round; the first round is a warm-up and not counted. The
// medians and the ratio portal/Orthanc are printed (target <= 1.0×); exits 1 when one is missed.
//
// Environment:
//   BENCH_DICOMWEB_COUNT=2000       how many instances
//   BENCH_DICOMWEB_SERIES=200       instances per series (one series per study)
//   BENCH_RUNS=10                   counted rounds (a retrieval's time moves ±50 % from one to the next)
//   BENCH_DICOMWEB_REPEAT=10        requests per QIDO case and round (timed together: one is a few ms)
//   BENCH_FILES_CACHE=/path         where the generated files are kept between runs (default: OS temp dir)
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareDicomwebData, type DicomwebData } from './dicomweb-input.js';
import { inPool } from './files-input.js';
import { post, startOrthanc, waitForOrthanc } from './files-orthanc.js';
import { startPortal } from './upload-portal.js';
import { stopChild, type Child } from './upload-process.js';
import { median } from './upload-report.js';

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

interface Answer {
  status: number;
  bytes: number;
  body: Buffer;
}

/** One request, its whole answer read. */
function request(url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } }, (response) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        chunks.push(chunk);
      });
      response.once('end', () => resolve({ status: response.statusCode ?? 0, bytes, body: Buffer.concat(chunks) }));
      response.once('error', reject);
    });
    req.once('error', reject);
    req.end(body);
  });
}

/** A DICOMweb server under test: its …/dicomweb root and the headers its requests carry. */
interface Server {
  name: 'portal' | 'orthanc';
  root: string;
  headers: Record<string, string>;
}

interface Case {
  name: string;
  /** Requests per measurement. */
  repeat: number;
  run(server: Server): Promise<void>;
}

const JSON_ACCEPT = { accept: 'application/dicom+json' };
const DICOM_ACCEPT = { accept: 'multipart/related; type="application/dicom"; transfer-syntax=*' };

async function search(server: Server, route: string, expected: number): Promise<void> {
  const answer = await request(`${server.root}${route}`, 'GET', { ...server.headers, ...JSON_ACCEPT });
  if (answer.status !== 200) throw new Error(`${server.name} answered ${answer.status} to ${route}: ${answer.body.toString().slice(0, 300)}`);
  const found = (JSON.parse(answer.body.toString()) as unknown[]).length;
  if (found !== expected) throw new Error(`${server.name} answered ${found} results to ${route}, expected ${expected}`);
}

function cases(data: DicomwebData, repeat: number): Case[] {
  const [first] = data.studies;
  const series = `/studies/${first!.study}/series/${first!.series}`;
  const seriesBytes = (async () => {
    let total = 0;
    for (const file of first!.files) total += (await readFile(file)).length;
    return total;
  })();
  return [
    { name: 'QIDO studies', repeat, run: (s) => search(s, '/studies', data.studies.length) },
    { name: 'QIDO series', repeat, run: (s) => search(s, '/series', data.studies.length) },
    { name: `QIDO ${first!.files.length} instances of a series`, repeat, run: (s) => search(s, `${series}/instances`, first!.files.length) },
    {
      name: `WADO-RS a series of ${first!.files.length} instances`,
      repeat: 1,
      async run(s) {
        const answer = await request(`${s.root}${series}`, 'GET', { ...s.headers, ...DICOM_ACCEPT });
        if (answer.status !== 200) throw new Error(`${s.name} answered ${answer.status} to the series retrieval`);
        // Every instance's bytes arrived, with the parts' boundaries and headers around them.
        if (answer.bytes < (await seriesBytes)) throw new Error(`${s.name} sent ${answer.bytes} bytes for a series of ${await seriesBytes}`);
      },
    },
  ];
}

/**
 * Each case starts on a machine at rest: right after the other server's 7.8 MB retrieval (its
 * collector, the client's) whichever server went second took 5–15 ms longer, 2 cores being shared,
 * which alternating the order only turned into noise (one server's medians 12–32 ms in one run).
 */
const SETTLE_MS = 200;

async function time(work: Case, server: Server): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const started = performance.now();
  for (let i = 0; i < work.repeat; i++) await work.run(server);
  return (performance.now() - started) / work.repeat;
}

/** Orthanc with its DICOMweb plugin on a loopback port, storage and index in a temporary folder. */
async function startDicomwebOrthanc(): Promise<{ child: Child; port: number; stop(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-bench-dicomweb-orthanc-'));
  const { child, port } = await startOrthanc(dir, {
    Plugins: ['/usr/share/orthanc/plugins/libOrthancDicomWeb.so'],
    DicomWeb: { Enable: true, Root: '/dicom-web/' },
  });
  const stop = async () => {
    await stopChild(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForOrthanc(port, child.process, 60_000);
    return { child, port, stop };
  } catch (err) {
    await stop();
    throw new Error(`Orthanc: ${err instanceof Error ? err.message : String(err)}\n${child.output()}`, { cause: err });
  }
}

/** One STOW-RS request per study into the portal, then until every row is processed. */
async function loadPortal(base: string, token: string, projectId: number, data: DicomwebData): Promise<void> {
  const boundary = 'bench-dicomweb-boundary';
  for (const study of data.studies) {
    const parts: Buffer[] = [];
    for (const file of study.files) parts.push(Buffer.from(`--${boundary}\r\nContent-Type: application/dicom\r\n\r\n`), await readFile(file), Buffer.from('\r\n'));
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    const answer = await request(`${base}/study-petitions/${projectId}/dicomweb/studies`, 'POST', { authorization: `Bearer ${token}`, 'content-type': `multipart/related; type="application/dicom"; boundary=${boundary}` }, Buffer.concat(parts));
    if (answer.status !== 200) throw new Error(`the portal's STOW answered ${answer.status}: ${answer.body.toString().slice(0, 300)}`);
  }
  for (;;) {
    const listed = await request(`${base}/study-petitions-files?study_petition_id=${projectId}&status=ready&per_page=1`, 'GET', { authorization: `Bearer ${token}` });
    const total = (JSON.parse(listed.body.toString()) as { page?: { total: number } }).page?.total;
    if (total === data.studies.length) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function main(): Promise<void> {
  const env = process.env;
  const count = Number(env.BENCH_DICOMWEB_COUNT ?? '2000');
  const perSeries = Number(env.BENCH_DICOMWEB_SERIES ?? '200');
  const runs = Number(env.BENCH_RUNS ?? '10');
  const repeat = Number(env.BENCH_DICOMWEB_REPEAT ?? '10');
  for (const [name, value] of Object.entries({ count, perSeries, runs, repeat })) {
    if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number`);
  }
  const source = '/work/shared/dicom/s01_CT_small.dcm';
  const data = await prepareDicomwebData(env.BENCH_FILES_CACHE ?? path.join(os.tmpdir(), 'portal-bench-files'), source, count, perSeries);
  console.log(`${count} instances of ${path.basename(source)} (${(data.bytes / 1e6).toFixed(1)} MB) in ${data.studies.length} studies of one series of ${perSeries}; ${runs} rounds + 1 warm-up, QIDO cases ${repeat} requests each`);

  const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'portal-bench-dicomweb-'));
  const portal = await startPortal(dataDir, repoRoot, 1024 ** 3);
  let orthanc: Awaited<ReturnType<typeof startDicomwebOrthanc>> | undefined;
  try {
    orthanc = await startDicomwebOrthanc();
    const loading = performance.now();
    await loadPortal(portal.base, portal.token, portal.projectId, data);
    const portalLoad = (performance.now() - loading) / 1000;
    const files = data.studies.flatMap((s) => s.files);
    const orthancLoading = performance.now();
    await inPool(files, 4, async (file) => {
      const status = await post(orthanc!.port, '/instances', await readFile(file));
      if (status !== 200) throw new Error(`Orthanc answered ${status} to an upload`);
    });
    console.log(`loaded (not timed in the comparison): portal ${portalLoad.toFixed(1)} s (STOW and processing), Orthanc ${((performance.now() - orthancLoading) / 1000).toFixed(1)} s`);

    const servers: Server[] = [
      { name: 'portal', root: `${portal.base}/study-petitions/${portal.projectId}/dicomweb`, headers: { authorization: `Bearer ${portal.token}` } },
      { name: 'orthanc', root: `http://127.0.0.1:${orthanc.port}/dicom-web`, headers: {} },
    ];
    const all = cases(data, repeat);
    const times = new Map<string, number[]>();
    for (let round = 0; round <= runs; round++) {
      for (const work of all) {
        // Alternated: neither server always runs first, with the other's caches warm.
        const order = round % 2 === 0 ? servers : [...servers].reverse();
        for (const server of order) {
          const ms = await time(work, server);
          if (round === 0) continue;
          const key = `${work.name}|${server.name}`;
          times.set(key, [...(times.get(key) ?? []), ms]);
        }
      }
    }
    const missed: string[] = [];
    for (const work of all) {
      const mine = median(times.get(`${work.name}|portal`)!);
      const theirs = median(times.get(`${work.name}|orthanc`)!);
      const ratio = mine / theirs;
      console.log(`${work.name.padEnd(36)} portal ${mine.toFixed(1).padStart(7)} ms  Orthanc ${theirs.toFixed(1).padStart(7)} ms  portal/Orthanc ${ratio.toFixed(2)}× (target <= 1.0): ${ratio <= 1 ? 'ok' : 'MISSED'}`);
      if (!(ratio <= 1)) missed.push(work.name);
    }
    if (missed.length > 0) {
      console.log(`MISSED: ${missed.join('; ')}`);
      process.exitCode = 1;
    }
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n--- portal output ---\n${portal.child.output()}`, { cause: err });
  } finally {
    agent.destroy();
    await orthanc?.stop();
    await stopChild(portal.child);
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
