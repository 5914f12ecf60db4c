// The native tar path (headers walked with node-tar's parsers, members read at their offsets)
// against tars written by bsdtar and GNU tar, tars made wrong on purpose, and the cases it leaves
// to 7-Zip. Entries read in place have an offset into the upload; 7-Zip's never do.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { readTarHeaders } from '../../src/ingest/extract/tar/tar-headers.js';
import { SevenZipWorker } from '../../src/ingest/extract/sevenzip/sevenzip-client.js';
import { ustar } from './archive-writers.js';
import { DICOM_DIR, collect, dcmdumpTags, sh, tempDir } from './helpers.js';

const LONG_DIR = `${'study-with-a-long-folder-name/'.repeat(4)}series-${'x'.repeat(40)}`;

async function dicoms(dir: string): Promise<void> {
  await sh(`mkdir -p '${LONG_DIR}' && cp '${DICOM_DIR}/s01_CT_small.dcm' '${LONG_DIR}/a.dcm' && cp '${DICOM_DIR}/s10_MR_small_implicit.dcm' c.dcm`, dir);
}

/** The SOP Instance UIDs dcmtk reads from the files the archive was made of. */
async function dcmtkUids(dir: string, files: readonly string[]): Promise<string[]> {
  return Promise.all(files.map(async (f) => (await dcmdumpTags(path.join(dir, f), ['0008,0018']))['0008,0018']!));
}

/** Counts the runs of each back end while `work` runs. */
async function backEnds<T>(work: () => Promise<T>): Promise<{ value: T; nativeTar: number; sevenZip: number }> {
  const nativeTar = vi.spyOn(SevenZipWorker.prototype, 'extractNativeTar');
  const sevenZip = vi.spyOn(SevenZipWorker.prototype, 'extract');
  try {
    const value = await work();
    return { value, nativeTar: nativeTar.mock.calls.length, sevenZip: sevenZip.mock.calls.length };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('the native tar path', () => {
  it.each([
    ['pax (bsdtar)', 'bsdtar --format pax -cf t.tar'],
    ['ustar (bsdtar)', 'bsdtar --format ustar -cf t.tar'],
    ['GNU long names (GNU tar)', 'tar --format=gnu -cf t.tar'],
    ['pax (GNU tar)', 'tar --format=pax -cf t.tar'],
  ])('reads long names from %s and leaves the members where they lie in the upload', async (_format, command) => {
    const dir = await tempDir();
    await dicoms(dir);
    const long = `${LONG_DIR}/a.dcm`;
    expect(long.length).toBeGreaterThan(155);
    await sh(`${command} '${long}' c.dcm`, dir);
    const tar = await readFile(path.join(dir, 't.tar'));
    const { value, nativeTar, sevenZip } = await backEnds(() => collect(path.join(dir, 't.tar'), 't.tar'));
    const { result, entries } = value;
    expect([nativeTar, sevenZip]).toEqual([1, 0]);
    expect(result).toMatchObject({ status: 'ready', summary: { instances: 2, skipped: 0 } });
    expect(entries.map((e) => e.path)).toEqual([long, 'c.dcm']);
    expect(entries.map((e) => e.dicom?.sop_instance_uid)).toEqual(await dcmtkUids(dir, [long, 'c.dcm']));
    for (const entry of entries) {
      expect(entry.inUploadAt).not.toBeNull();
      expect(entry.existed).toBe(false);
      // The range the entry points at is the file that went into the tar.
      const original = await readFile(path.join(dir, entry.path));
      expect(tar.subarray(entry.inUploadAt!, entry.inUploadAt! + entry.size).equals(original)).toBe(true);
    }
  });

  it('names links and devices for what they are, so the safety rules refuse them', async () => {
    const dir = await tempDir();
    await dicoms(dir);
    await sh('ln -s /etc/passwd link && ln c.dcm hard.dcm && bsdtar -cf links.tar c.dcm hard.dcm link', dir);
    await writeFile(path.join(dir, 'dev.tar'), ustar([{ name: 'null-again', type: '3' }, { name: 'fifo', type: '6' }, { name: '../up.txt', type: '0', data: Buffer.from('x') }]));
    expect((await readTarHeaders(path.join(dir, 'links.tar'), 100))?.entries.map((e) => [e.rawPath, e.type])).toEqual([
      ['c.dcm', 'file'],
      ['hard.dcm', 'hardlink'],
      ['link', 'symlink'],
    ]);
    // Nothing is left to extract: 7-Zip is not asked.
    const { value, sevenZip } = await backEnds(() => collect(path.join(dir, 'dev.tar'), 'dev.tar'));
    expect(sevenZip).toBe(0);
    expect(value.entries.map((e) => [e.path, e.reason])).toEqual([
      ['null-again', 'device, FIFO or socket'],
      ['fifo', 'device, FIFO or socket'],
      ['../up.txt', 'path traversal (..)'],
    ]);
  });

  it('keeps what a truncated tar holds before the cut, and says the archive is damaged', async () => {
    const dir = await tempDir();
    await dicoms(dir);
    await sh(`head -c 300000 /dev/urandom > noise.bin && bsdtar -cf t.tar '${LONG_DIR}/a.dcm' noise.bin c.dcm && head -c 200000 t.tar > cut.tar`, dir);
    const { value, sevenZip } = await backEnds(() => collect(path.join(dir, 'cut.tar'), 'cut.tar'));
    expect(sevenZip).toBe(0);
    expect(value.result.status).toBe('ready');
    expect(value.entries.map((e) => [e.path, e.kind, e.reason])).toEqual([
      [`${LONG_DIR}/a.dcm`, 'dicom', null],
      ['noise.bin', 'skipped', 'corrupt or truncated data'],
      ['cut.tar', 'skipped', 'corrupt or truncated archive'],
    ]);
  });

  it('copies out the members of a tar inside a zip, and of a .tar.gz, whose tar it reads natively', async () => {
    const dir = await tempDir();
    await dicoms(dir);
    await sh('bsdtar -cf inner.tar c.dcm && bsdtar --format zip -cf outer.zip inner.tar && bsdtar -czf t.tar.gz c.dcm', dir);
    const [uid] = await dcmtkUids(dir, ['c.dcm']);
    const nested = await backEnds(() => collect(path.join(dir, 'outer.zip'), 'outer.zip'));
    expect(nested.nativeTar).toBe(1);
    expect(nested.value.entries.map((e) => [e.path, e.dicom?.sop_instance_uid, e.inUploadAt, e.existed])).toEqual([['inner.tar/c.dcm', uid, null, true]]);
    const gz = await backEnds(() => collect(path.join(dir, 't.tar.gz'), 't.tar.gz'));
    // 7-Zip decompresses the gzip stream; the tar inside is read natively.
    expect([gz.nativeTar, gz.sevenZip]).toEqual([1, 1]);
    expect(gz.value.entries.map((e) => [e.path, e.dicom?.sop_instance_uid, e.inUploadAt, e.existed])).toEqual([['c.dcm', uid, null, true]]);
  });

  it('counts its entries against the entries an upload may see', async () => {
    const dir = await tempDir();
    await sh('mkdir many && for i in $(seq 30); do echo $i > many/f$i.txt; done && bsdtar -cf many.tar many', dir);
    const { result, entries } = await collect(path.join(dir, 'many.tar'), 'many.tar', { limits: { maxEntriesSeen: 20 } });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^Processing stopped: the archives in this upload list more than 20 entries in all, .*MAX_ENTRIES_SEEN_PER_UPLOAD\.$/);
    expect(entries).toEqual([]);
    const capped = await collect(path.join(dir, 'many.tar'), 'many.tar', { limits: { maxEntries: 10 } });
    expect(capped.result.summary).toMatchObject({ other: 10, skipped: 20, skipped_reasons: { 'too many entries': 20 } });
  });

  it('leaves a tar with a damaged header or sparse files to 7-Zip, with the same results as before', async () => {
    const dir = await tempDir();
    await dicoms(dir);
    await sh('truncate -s 2000000 hole.bin && echo end >> hole.bin && tar --format=pax -S -cf sparse.tar c.dcm hole.bin', dir);
    expect(await readTarHeaders(path.join(dir, 'sparse.tar'), 100)).toBeNull();
    const sparse = await backEnds(() => collect(path.join(dir, 'sparse.tar'), 'sparse.tar'));
    expect([sparse.nativeTar, sparse.sevenZip]).toEqual([0, 1]);
    expect(sparse.value.result.summary).toMatchObject({ instances: 1 });

    await sh('echo noise > noise.txt && bsdtar --format ustar -cf good.tar c.dcm noise.txt', dir);
    const tar = await readFile(path.join(dir, 'good.tar'));
    // The second header's checksum no longer adds up.
    const second = 512 + Math.ceil((await readFile(path.join(dir, 'c.dcm'))).length / 512) * 512;
    tar[second + 100] = tar[second + 100]! ^ 0x01;
    await writeFile(path.join(dir, 'damaged.tar'), tar);
    expect(await readTarHeaders(path.join(dir, 'damaged.tar'), 100)).toBeNull();
    const damaged = await backEnds(() => collect(path.join(dir, 'damaged.tar'), 'damaged.tar'));
    expect([damaged.nativeTar, damaged.sevenZip]).toEqual([0, 1]);
    expect(damaged.value.entries[0]).toMatchObject({ path: 'c.dcm', kind: 'dicom' });
  });
});
