import { copyFile, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingestUpload } from '../../src/ingest/ingest-upload.js';
import { ustar } from './archive-writers.js';
import { DICOM_DIR, collect, dirBytes, sh, tempDir } from './helpers.js';

const MB = 1024 * 1024;

async function withDicom(dir: string, name = 'ok.dcm'): Promise<Buffer> {
  const data = await readFile(path.join(DICOM_DIR, 's01_CT_small.dcm'));
  await writeFile(path.join(dir, name), data);
  return data;
}

/** Polls the work dir while processing runs (7-Zip works in another thread, so polling keeps up). */
async function peakWorkDirBytes<T>(workDir: string, work: () => Promise<T>): Promise<{ value: T; peak: number }> {
  let peak = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await dirBytes(workDir));
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  try {
    return { value: await work(), peak };
  } finally {
    sampling = false;
    await sampler;
  }
}

/** n gzip members of zeros, concatenated: a valid gzip whose last ISIZE understates the whole. */
async function zeroGzip(dir: string, name: string, members: number, memberMb: number): Promise<string> {
  await sh(`head -c ${memberMb}M /dev/zero | gzip -9 > member.gz`, dir);
  await sh(`for i in $(seq ${members}); do cat member.gz; done > ${name} && rm member.gz`, dir);
  return path.join(dir, name);
}

describe('unsafe names and entry types', () => {
  it('skips traversal, absolute, drive-letter and backslash names and keeps the rest', async () => {
    const dir = await tempDir();
    const dicom = await withDicom(dir);
    const evil = Buffer.from('escaped\n');
    const tar = ustar([
      { name: '../evil.txt', type: '0', data: evil },
      { name: 'a/../../evil.txt', type: '0', data: evil },
      { name: '/tmp/evil-absolute.txt', type: '0', data: evil },
      { name: 'C:/evil.txt', type: '0', data: evil },
      { name: 'dir\\..\\evil.txt', type: '0', data: evil },
      { name: 'series/ok.dcm', type: '0', data: dicom },
    ]);
    await writeFile(path.join(dir, 'evil.tar'), tar);
    const workDir = path.join(dir, 'work');
    await sh('mkdir work', dir);
    const { result, entries } = await collect(path.join(dir, 'evil.tar'), 'evil.tar', { workDir });
    expect(result.summary.skipped_reasons).toEqual({
      'path traversal (..)': 2,
      'absolute path': 1,
      'drive letter in path': 1,
      'backslash in path': 1,
    });
    expect(entries.filter((e) => e.kind === 'dicom').map((e) => e.path)).toEqual(['series/ok.dcm']);
    expect((await readdir(dir)).sort()).toEqual(['evil.tar', 'ok.dcm', 'work']);
    expect(await readdir(workDir)).toEqual([]);
  });

  it('skips traversal, absolute, drive-letter and backslash names in a zip written by bsdtar', async () => {
    const dir = await tempDir();
    await withDicom(dir);
    await sh('for n in a b c d; do cp ok.dcm $n.dcm; done', dir);
    const renames = [',^a.dcm$,../../escaped.dcm,', ',^b.dcm$,/abs/evil.dcm,', ',^c.dcm$,C:/evil.dcm,', ',^d.dcm$,dir\\evil.dcm,'];
    await sh(`bsdtar --format zip -P ${renames.map((r) => `-s '${r}'`).join(' ')} -cf evil.zip a.dcm b.dcm c.dcm d.dcm ok.dcm`, dir);
    const { result, entries } = await collect(path.join(dir, 'evil.zip'), 'evil.zip');
    expect(result.summary).toMatchObject({
      instances: 1,
      skipped: 4,
      skipped_reasons: { 'path traversal (..)': 1, 'absolute path': 1, 'drive letter in path': 1, 'backslash in path': 1 },
    });
    expect(entries.filter((e) => e.kind === 'dicom').map((e) => e.path)).toEqual(['ok.dcm']);
  });

  it('never creates or follows symbolic links and hard links, from tar or zip', async () => {
    const dir = await tempDir();
    await withDicom(dir);
    await sh('ln -s /etc/passwd link && ln ok.dcm hard.dcm && bsdtar -cf links.tar ok.dcm hard.dcm link && bsdtar --format zip -cf links.zip ok.dcm link', dir);
    const tar = await collect(path.join(dir, 'links.tar'), 'links.tar');
    expect(tar.result.summary).toMatchObject({ instances: 1, skipped_reasons: { 'hard link': 1, 'symbolic link': 1 } });
    const zip = await collect(path.join(dir, 'links.zip'), 'links.zip');
    expect(zip.result.summary).toMatchObject({ instances: 1, skipped_reasons: { 'symbolic link': 1 } });
  });

  it('never creates devices or FIFOs', async () => {
    const dir = await tempDir();
    const dicom = await withDicom(dir);
    const tar = ustar([
      { name: 'dev/null-again', type: '3' },
      { name: 'dev/sda-again', type: '4' },
      { name: 'fifo', type: '6' },
      { name: 'ok.dcm', type: '0', data: dicom },
    ]);
    await writeFile(path.join(dir, 'dev.tar'), tar);
    const { result } = await collect(path.join(dir, 'dev.tar'), 'dev.tar');
    expect(result.summary).toMatchObject({ instances: 1, skipped: 3, skipped_reasons: { 'device, FIFO or socket': 3 } });
  });
});

describe('limits', () => {
  // The 7z goes through 7-Zip, which extracts everything listed and stops where the cap cut the listing.
  it.each([
    ['zip', 'zip'],
    ['7z', '7zip'],
  ])('keeps maxEntries entries of a %s, the first ones, and counts the rest', async (extension, bsdtarFormat) => {
    const dir = await tempDir();
    await sh(`mkdir many && for i in $(seq 30); do echo $i > many/f$i.txt; done && bsdtar --format ${bsdtarFormat} -cf many.${extension} many`, dir);
    const listed = (await sh(`bsdtar -tf many.${extension}`, dir)).split('\n').filter((name) => name !== '' && !name.endsWith('/'));
    const { result, entries } = await collect(path.join(dir, `many.${extension}`), `many.${extension}`, { limits: { maxEntries: 10 } });
    expect(entries.map((e) => [e.path, e.kind])).toEqual(listed.slice(0, 10).map((name) => [name, 'other']));
    expect(result.summary).toMatchObject({ other: 10, skipped: 20, skipped_reasons: { 'too many entries': 20 } });
  });

  it('skips an entry whose header says 3 GB without writing it', async () => {
    const dir = await tempDir();
    const dicom = await withDicom(dir);
    // 7-Zip does not read PAX or GNU sparse entries as sparse, so the tar states the size instead.
    const tar = ustar([
      { name: 'ok.dcm', type: '0', data: dicom },
      { name: 'zeros.bin', type: '0', data: Buffer.alloc(MB), claimedSize: 3 * 1024 * MB },
    ]);
    await writeFile(path.join(dir, 'zeros.tar'), tar);
    const workDir = path.join(dir, 'work');
    await sh('mkdir work', dir);
    const { value, peak } = await peakWorkDirBytes(workDir, () =>
      collect(path.join(dir, 'zeros.tar'), 'zeros.tar', { workDir, limits: { maxEntryBytes: 50 * MB } }),
    );
    expect(value.result.summary).toMatchObject({ instances: 1, skipped_reasons: { 'entry over the size limit': 1 } });
    expect(peak).toBeLessThan(5 * MB);
  });

  it('stops 3 GB of zeros in a gzip while writing, though its header says 32 MB', async () => {
    const dir = await tempDir();
    const gz = await zeroGzip(dir, 'zeros.dcm.gz', 96, 32);
    const workDir = path.join(dir, 'work');
    await sh('mkdir work', dir);
    const started = Date.now();
    const ratio = await peakWorkDirBytes(workDir, () => collect(gz, 'zeros.dcm.gz', { workDir, limits: { maxCompressionRatio: 10 } }));
    expect(ratio.value.result.summary.skipped_reasons).toEqual({ 'compression ratio over the limit': 1 });
    const total = await peakWorkDirBytes(workDir, () =>
      collect(gz, 'zeros.dcm.gz', { workDir, limits: { maxTotalBytes: 50 * MB, maxCompressionRatio: 100_000 } }),
    );
    expect(total.value.result.summary.skipped_reasons).toEqual({ 'total size limit reached': 1 });
    expect(Math.max(ratio.peak, total.peak)).toBeLessThan(60 * MB);
    // Generous for a loaded CI machine; the peak above is the real evidence of stopping early.
    expect(Date.now() - started).toBeLessThan(45_000);
    expect(await readdir(workDir)).toEqual([]);
  });

  it('stops a nested bomb by ratio, by total size and by depth', async () => {
    const dir = await tempDir();
    await sh('head -c 20M /dev/zero > zeros.bin && bsdtar --format zip -cf z.zip zeros.bin && rm zeros.bin', dir);
    await sh('for i in $(seq 8); do cp z.zip z$i.zip; done && bsdtar --format zip -cf bomb.zip z?.zip', dir);
    const ratio = await collect(path.join(dir, 'bomb.zip'), 'bomb.zip');
    expect(ratio.result.summary.skipped_reasons).toEqual({ 'compression ratio over the limit': 8 });
    const { result } = await collect(path.join(dir, 'bomb.zip'), 'bomb.zip', { limits: { maxTotalBytes: 50 * MB, maxCompressionRatio: 100_000 } });
    expect(result.summary.other).toBe(2);
    expect(result.summary.skipped_reasons['total size limit reached']).toBe(6);

    await withDicom(dir);
    await sh('cp ok.dcm l0.dcm && for i in 1 2 3 4 5; do bsdtar --format zip -cf l$i.zip l$((i-1)).*; done', dir);
    const deep = await collect(path.join(dir, 'l5.zip'), 'l5.zip', { limits: { maxDepth: 3 } });
    expect(deep.entries.map((e) => [e.path, e.reason])).toEqual([['l4.zip/l3.zip/l2.zip', 'archive nested deeper than the limit']]);
    const allowed = await collect(path.join(dir, 'l5.zip'), 'l5.zip');
    expect(allowed.entries.map((e) => [e.path, e.kind])).toEqual([['l4.zip/l3.zip/l2.zip/l1.zip/l0.dcm', 'dicom']]);
  });
});

describe('encrypted, corrupt and mislabelled uploads', () => {
  it("fails encrypted zip and 7z with 'password-protected archives are not supported'", async () => {
    const dir = await tempDir();
    await withDicom(dir);
    await sh('7zz a -bso0 -bsp0 -tzip -pSECRET enc.zip ok.dcm && 7zz a -bso0 -bsp0 -pSECRET enc.7z ok.dcm && 7zz a -bso0 -bsp0 -pSECRET -mhe=on head.7z ok.dcm', dir);
    for (const name of ['enc.zip', 'enc.7z', 'head.7z']) {
      const { result, entries } = await collect(path.join(dir, name), name);
      expect([name, result.status, result.error]).toEqual([name, 'failed', 'password-protected archives are not supported']);
      expect(entries).toEqual([]);
    }
  });

  it('skips an encrypted archive inside a readable one', async () => {
    const dir = await tempDir();
    await withDicom(dir);
    await sh('7zz a -bso0 -bsp0 -tzip -pSECRET enc.zip ok.dcm && bsdtar --format zip -cf outer.zip enc.zip ok.dcm', dir);
    const { result } = await collect(path.join(dir, 'outer.zip'), 'outer.zip');
    expect(result.summary).toMatchObject({ instances: 1, skipped_reasons: { 'password-protected archives are not supported': 1 } });
  });

  it('keeps the intact entries of a zip with flipped bytes, before and after the damaged one', async () => {
    const dir = await tempDir();
    await withDicom(dir, 'a.dcm');
    await copyFile(path.join(DICOM_DIR, 's10_MR_small_implicit.dcm'), path.join(dir, 'b.dcm'));
    await copyFile(path.join(DICOM_DIR, 's13_US_rgb_bigendian.dcm'), path.join(dir, 'c.dcm'));
    // The damaged entry sits in the middle: entries are handed on while extraction goes on.
    await sh('bsdtar --format zip -cf good.zip a.dcm b.dcm c.dcm', dir);
    const zip = await readFile(path.join(dir, 'good.zip'));
    const second = zip.indexOf(Buffer.from('b.dcm')) + 'b.dcm'.length + 200;
    zip.fill(0x5a, second, second + 64);
    await writeFile(path.join(dir, 'flipped.zip'), zip);
    const { result, entries } = await collect(path.join(dir, 'flipped.zip'), 'flipped.zip');
    expect(result.status).toBe('ready');
    // The zip's structure is intact, so only the entry whose CRC-32 fails is skipped.
    expect(entries.map((e) => [e.path, e.kind])).toEqual([
      ['a.dcm', 'dicom'],
      ['b.dcm', 'skipped'],
      ['c.dcm', 'dicom'],
    ]);
    expect(entries[1]!.reason).toBe('corrupt or truncated data');
  });

  it('keeps what a truncated tar.gz holds before the cut, and fails a zip cut before its directory', async () => {
    const dir = await tempDir();
    await withDicom(dir, 'a.dcm');
    await sh('head -c 3000000 /dev/urandom > noise.bin && bsdtar -czf t.tar.gz a.dcm noise.bin && bsdtar --format zip -cf t.zip a.dcm noise.bin', dir);
    await sh('head -c 1500000 t.tar.gz > cut.tar.gz && head -c 1500000 t.zip > cut.zip', dir);
    const tgz = await collect(path.join(dir, 'cut.tar.gz'), 'cut.tar.gz');
    expect(tgz.result.status).toBe('ready');
    expect(tgz.entries.map((e) => [e.path, e.kind])).toEqual([
      ['a.dcm', 'dicom'],
      ['noise.bin', 'skipped'],
      ['cut.tar.gz', 'skipped'],
    ]);
    const zip = await collect(path.join(dir, 'cut.zip'), 'cut.zip');
    expect(zip.result.status).toBe('failed');
    expect(zip.result.error).toMatch(/^The archive could not be read: it is damaged or incomplete/);
  });

  it('says in words why a truncated 7z cannot be read: no internal path, library name or code', async () => {
    const dir = await tempDir();
    await withDicom(dir, 'a.dcm');
    await sh('head -c 400000 /dev/urandom > noise.bin && 7zz a -bso0 -bsp0 t.7z a.dcm noise.bin && head -c 200000 t.7z > cut.7z', dir);
    for (const name of ['cut.7z']) {
      // Before: "… (/in/<uuid> : Unexpected end of archive)".
      const { result } = await collect(path.join(dir, name), name);
      expect(result.status).toBe('failed');
      expect(result.error).toMatch(/^The archive could not be read: it is damaged or incomplete( \([a-z ,:]+\))?\. Upload it again or re-create it\.$/);
      expect(result.error).not.toMatch(/\/in\/|7-?zip|error \d|ERROR|dicomParser/i);
    }
  });

  it('fails a .zip that is really a gzip stream, saying what to do', async () => {
    const dir = await tempDir();
    await withDicom(dir);
    await sh('gzip -c ok.dcm > really-gzip.zip', dir);
    const { result } = await collect(path.join(dir, 'really-gzip.zip'), 'really-gzip.zip');
    expect(result).toMatchObject({
      status: 'failed',
      error: 'The file is named .zip but its content is a gzip stream; rename it to .gz or upload the original file.',
    });
  });

  it('marks unreadable DICOM inside an archive without stopping the rest, and keeps what a cut one holds', async () => {
    const dir = await tempDir();
    const data = await withDicom(dir, 'good.dcm');
    // A preamble and 'DICM', then nothing a DICOM reader can use.
    await writeFile(path.join(dir, 'broken.dcm'), Buffer.concat([data.subarray(0, 132), Buffer.alloc(200, 0xee)]));
    await writeFile(path.join(dir, 'cut.dcm'), data.subarray(0, 600));
    await sh('bsdtar -cf mixed.tar broken.dcm cut.dcm good.dcm', dir);
    const { result, entries } = await collect(path.join(dir, 'mixed.tar'), 'mixed.tar');
    // cut.dcm is the start of good.dcm: its meta header names the same instance, counted once.
    expect(result.summary).toMatchObject({ instances: 1, skipped: 0 });
    expect(entries[0]).toMatchObject({ path: 'broken.dcm', kind: 'dicom', dicom: null });
    expect(entries[0]!.reason).toMatch(/^unreadable DICOM: not one element of its header could be read/);
    expect(entries[1]).toMatchObject({ path: 'cut.dcm', kind: 'dicom' });
    expect(entries[1]!.dicom?.sop_instance_uid).toBe(entries[2]!.dicom?.sop_instance_uid);
    expect(entries[1]!.reason).toMatch(/^truncated or damaged DICOM header: only its first \d+ bytes could be read/);
  });
});

describe('abort', () => {
  it('stops promptly when aborted mid-extraction and leaves no work files', async () => {
    const dir = await tempDir();
    const gz = await zeroGzip(dir, 'big.gz', 32, 32);
    const workDir = path.join(dir, 'work');
    await sh('mkdir work', dir);
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('file deleted')), 300);
    const run = ingestUpload(
      { inputPath: gz, originalName: 'big.gz', workDir, signal: controller.signal, limits: { maxCompressionRatio: 1e6 } },
      () => Promise.resolve(),
    );
    await expect(run).rejects.toThrow('file deleted');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await readdir(workDir)).toEqual([]);
  });
});
