import { lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SevenZipWorker } from '../../src/ingest/extract/sevenzip/sevenzip-client.js';
import type { SettledFile } from '../../src/ingest/extract/sevenzip/sevenzip-protocol.js';
import { unpackEntries } from '../../src/ingest/extract/sevenzip/sevenzip-listing.js';
import { DICOM_DIR, sh, tempDir } from './helpers.js';

const workers: SevenZipWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.close()));
});

function worker(): SevenZipWorker {
  const w = new SevenZipWorker();
  workers.push(w);
  return w;
}

/** This process's children that run sevenzip-worker (the 7-Zip processes), by pid. */
async function sevenZipProcesses(): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === process.pid && (await readFile(`/proc/${name}/cmdline`, 'utf8')).includes('sevenzip-worker')) found.push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/**
 * A 7z of ten small files in `f/`, and a run of it that settles files one by one and opens no more
 * than its credit allows (it then waits until the job raises it).
 */
async function creditedRunOfTenFiles(allowed: number) {
  const dir = await tempDir();
  await sh('mkdir f && for i in $(seq 10); do echo $i > f/$i.txt; done && bsdtar --format 7zip -cf f.7z f', dir);
  const out = path.join(dir, 'out');
  await mkdir(out);
  const credit = new Int32Array(new SharedArrayBuffer(4));
  Atomics.store(credit, 0, allowed);
  const request = {
    archive: path.join(dir, 'f.7z'),
    format: '7z' as const,
    outDir: out,
    include: null,
    settledOnly: true,
    credit,
    maxDicomHeaderBytes: 16 << 20,
    guard: { maxEntryBytes: 1e9, expectedSizes: {}, budgetBytes: 1e9, budgetReason: 'total' as const },
  };
  return { out, credit, request };
}

async function until(condition: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the 7-Zip worker and its write guard', () => {
  it('stops at once when a file grows past the size its header promised', async () => {
    const dir = await tempDir();
    await sh(`cp '${DICOM_DIR}/s01_CT_small.dcm' a.dcm && head -c 3000000 /dev/urandom > big.bin && bsdtar --format zip -cf s.zip a.dcm big.bin`, dir);
    await mkdir(path.join(dir, 'out'));
    const result = await worker().extract({
      archive: path.join(dir, 's.zip'),
      format: 'zip',
      outDir: path.join(dir, 'out'),
      include: null,
      maxDicomHeaderBytes: 16 << 20,
      // The real size is 3 MB: telling the guard 1000 bytes is what a lying header looks like to it.
      guard: { maxEntryBytes: 1e9, expectedSizes: { 'big.bin': 1000 }, budgetBytes: 1e9, budgetReason: 'total' },
    });
    expect(result.stop).toEqual({ reason: 'header-lied', path: 'big.bin' });
    expect(result.completed).toEqual(['a.dcm']);
    expect((await lstat(path.join(dir, 'out/big.bin'))).size).toBeLessThanOrEqual(1000);
  });

  it('reads each file as it settles: size, kind and DICOM header, created for the owner only', async () => {
    const dir = await tempDir();
    await sh(`cp '${DICOM_DIR}/s01_CT_small.dcm' a.dcm && echo hello > b.txt && bsdtar --format zip -cf s.zip a.dcm b.txt`, dir);
    const stdout = await sh(`dcmdump +P SOPInstanceUID +P Rows a.dcm`, dir);
    const [uid, rows] = [/\[([\d.]+)\]/.exec(stdout)![1], /US (\d+)/.exec(stdout)![1]];
    await mkdir(path.join(dir, 'out'));
    const settled: SettledFile[] = [];
    await worker().extract(
      {
        archive: path.join(dir, 's.zip'),
        format: 'zip',
        outDir: path.join(dir, 'out'),
        include: null,
        maxDicomHeaderBytes: 16 << 20,
        guard: { maxEntryBytes: 1e9, expectedSizes: {}, budgetBytes: 1e9, budgetReason: 'total' },
      },
      (file) => settled.push(file),
    );
    const [dcm, txt] = settled;
    expect(dcm?.analysis).toMatchObject({ kind: 'dicom', size: (await lstat(path.join(dir, 'a.dcm'))).size });
    expect(dcm?.analysis?.dicom).toMatchObject({ ok: true, fields: { sop_instance_uid: uid, rows: Number(rows) } });
    expect(txt?.analysis).toEqual({ kind: 'unknown', size: 6, dicom: null });
    expect((await lstat(path.join(dir, 'out/a.dcm'))).mode & 0o777).toBe(0o600);
  });

  it('stops when the run would pass its byte budget', async () => {
    const dir = await tempDir();
    await sh('head -c 20000000 /dev/zero | gzip > z.gz', dir);
    await mkdir(path.join(dir, 'out'));
    const result = await worker().extract({
      archive: path.join(dir, 'z.gz'),
      format: 'gzip',
      outDir: path.join(dir, 'out'),
      include: null,
      maxDicomHeaderBytes: 16 << 20,
      guard: { maxEntryBytes: null, expectedSizes: {}, budgetBytes: 5_000_000, budgetReason: 'ratio' },
    });
    expect(result.stop?.reason).toBe('ratio');
    expect(result.written).toBeLessThanOrEqual(5_000_000);
  });

  it('refuses to create a symbolic link even when told to extract everything', async () => {
    const dir = await tempDir();
    await sh('ln -s /etc/passwd link && echo hi > f.txt && bsdtar -cf l.tar link f.txt', dir);
    await mkdir(path.join(dir, 'out'));
    const result = await worker().extract({
      archive: path.join(dir, 'l.tar'),
      format: 'tar',
      outDir: path.join(dir, 'out'),
      include: null,
      maxDicomHeaderBytes: 16 << 20,
      guard: { maxEntryBytes: 1e9, expectedSizes: {}, budgetBytes: 1e9, budgetReason: 'total' },
    });
    expect(await readdir(path.join(dir, 'out'))).toEqual(['f.txt']);
    expect(result.errors.some((e) => /symbolic link/i.test(e))).toBe(true);
  });

  it('opens no more files than the job allows, and goes on when it allows more', async () => {
    const { out, credit, request } = await creditedRunOfTenFiles(3);
    const settled: string[] = [];
    const run = worker().extract(request, (file) => settled.push(file.rel));
    // The third file is settled as the fourth is about to open, which then waits.
    while (settled.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toHaveLength(3);
    expect(await readdir(path.join(out, 'f'))).toHaveLength(3);
    Atomics.store(credit, 0, 100);
    Atomics.notify(credit, 0);
    const result = await run;
    expect(result.exitCode).toBe(0);
    expect(settled).toHaveLength(10);
    expect(result.completed).toEqual([]);
  });

  it('runs 7-Zip in a process of its own, which ends when the job is aborted', async () => {
    // The run waits for the job after one file: it is still running when the job is aborted.
    const { request } = await creditedRunOfTenFiles(1);
    const job = new AbortController();
    const sevenZip = new SevenZipWorker(job.signal);
    workers.push(sevenZip);
    let settled = 0;
    const run = sevenZip.extract(request, () => (settled += 1));
    run.catch(() => undefined);
    await until(async () => (await sevenZipProcesses()).length === 1);
    job.abort(new Error('the job was aborted'));
    await expect(run).rejects.toThrow('the job was aborted');
    await until(async () => (await sevenZipProcesses()).length === 0);
    expect(settled).toBeLessThanOrEqual(1);
  });

  it('holds files to the sizes of its own listing, and extracts nothing without one', async () => {
    const dir = await tempDir();
    await sh('mkdir f && for i in $(seq 5); do echo $i > f/$i.txt; done && bsdtar --format 7zip -cf f.7z f', dir);
    const out = path.join(dir, 'out');
    await mkdir(out);
    const request = {
      archive: path.join(dir, 'f.7z'),
      format: '7z' as const,
      outDir: out,
      include: null,
      sizesFromListing: true,
      maxDicomHeaderBytes: 16 << 20,
      guard: { maxEntryBytes: 1e9, expectedSizes: {}, budgetBytes: 1e9, budgetReason: 'total' as const },
    };
    const w = worker();
    await expect(w.extract(request)).rejects.toThrow();
    expect(await readdir(out)).toEqual([]);
    await w.list({ archive: request.archive, format: '7z', cap: 10 });
    const settled: string[] = [];
    const result = await w.extract(request, (file) => settled.push(file.rel));
    expect(result).toMatchObject({ exitCode: 0, stop: null, crash: null });
    expect(settled.sort()).toEqual(['f/1.txt', 'f/2.txt', 'f/3.txt', 'f/4.txt', 'f/5.txt']);
  });

  it('lists entries with their types, sizes and encryption', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'a.txt'), 'x'.repeat(5000));
    await sh('ln -s a.txt l && 7zz a -bso0 -bsp0 -snl a.7z a.txt l', dir);
    const { listing } = await worker().list({ archive: path.join(dir, 'a.7z'), format: '7z', cap: 10 });
    expect([...unpackEntries(listing.entries)].map((e) => [e.rawPath, e.type, e.size, e.encrypted])).toEqual([
      ['a.txt', 'file', 5000, false],
      ['l', 'symlink', 5, false],
    ]);
  });
});
