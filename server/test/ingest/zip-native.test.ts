// The native zip path (yauzl + Node's zlib) against zips that lie, and the cases it leaves to 7-Zip.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readZipDirectory } from '../../src/ingest/extract/zip/zip-directory.js';
import { understate } from './archive-writers.js';
import { DICOM_DIR, collect, sh, tempDir } from './helpers.js';

const MB = 1024 * 1024;

/** Writes a zip made wrong on purpose and processes it. */
async function collectDamaged(dir: string, name: string, zip: Buffer, options: Parameters<typeof collect>[2] = {}) {
  await writeFile(path.join(dir, name), zip);
  return collect(path.join(dir, name), name, options);
}

async function threeDicoms(dir: string): Promise<void> {
  await sh(`cp '${DICOM_DIR}/s01_CT_small.dcm' a.dcm && cp '${DICOM_DIR}/s10_MR_small_implicit.dcm' c.dcm`, dir);
}

describe('the native zip path', () => {
  it('reads plain zips itself and leaves encrypted or unusual ones to 7-Zip', async () => {
    const dir = await tempDir();
    await threeDicoms(dir);
    await sh('7zz a -bso0 -tzip -mm=Deflate plain.zip a.dcm c.dcm', dir);
    await sh('7zz a -bso0 -tzip -mm=BZip2 bzip2.zip a.dcm c.dcm', dir);
    await sh('7zz a -bso0 -tzip -psecret locked.zip a.dcm', dir);
    expect((await readZipDirectory(path.join(dir, 'plain.zip'), 100))?.entries.map((e) => [e.rawPath, e.zip.method])).toEqual([
      ['a.dcm', 8],
      ['c.dcm', 8],
    ]);
    expect(await readZipDirectory(path.join(dir, 'bzip2.zip'), 100)).toBeNull();
    expect(await readZipDirectory(path.join(dir, 'locked.zip'), 100)).toBeNull();
    // 7-Zip then reads what the native path declined, with the same results.
    const bzip2 = await collect(path.join(dir, 'bzip2.zip'), 'bzip2.zip');
    const plain = await collect(path.join(dir, 'plain.zip'), 'plain.zip');
    expect(bzip2.entries.map((e) => [e.path, e.kind, e.sha256])).toEqual(plain.entries.map((e) => [e.path, e.kind, e.sha256]));
  });

  it('skips a deflated entry that inflates past the size its header states, and keeps the others', async () => {
    const dir = await tempDir();
    await threeDicoms(dir);
    await sh('head -c 8000000 /dev/zero > b.bin && bsdtar --format zip -cf honest.zip a.dcm b.bin c.dcm', dir);
    const zip = understate(await readFile(path.join(dir, 'honest.zip')), 'b.bin', 1000);
    const { result, entries } = await collectDamaged(dir, 'lying.zip', zip);
    expect(result.status).toBe('ready');
    expect(entries.map((e) => [e.path, e.kind, e.reason])).toEqual([
      ['a.dcm', 'dicom', null],
      ['b.bin', 'skipped', 'entry larger than its header states'],
      ['c.dcm', 'dicom', null],
    ]);
  });

  it('stops streaming a large deflated entry as soon as it passes its stated size', async () => {
    const dir = await tempDir();
    await threeDicoms(dir);
    // 64 MB of zeros deflate to ~64 KB; the directory claims 20 MB (over the size inflated at once).
    await sh('head -c 64M /dev/zero > zeros.bin && bsdtar --format zip -cf honest.zip a.dcm zeros.bin', dir);
    const zip = understate(await readFile(path.join(dir, 'honest.zip')), 'zeros.bin', 20 * MB);
    const { result, entries } = await collectDamaged(dir, 'bomb.zip', zip, { limits: { maxCompressionRatio: 1000 } });
    expect(result.status).toBe('ready');
    expect(entries.map((e) => [e.path, e.kind, e.reason])).toEqual([
      ['a.dcm', 'dicom', null],
      ['zeros.bin', 'skipped', 'entry larger than its header states'],
    ]);
  });

  it('streams a large deflated entry to the same bytes sha256sum sees', async () => {
    const dir = await tempDir();
    await threeDicoms(dir);
    await sh('head -c 15000000 /dev/urandom | base64 > big.txt && bsdtar --format zip -cf big.zip a.dcm big.txt c.dcm', dir);
    const sums = await sh('sha256sum a.dcm big.txt c.dcm', dir);
    const { result, entries } = await collect(path.join(dir, 'big.zip'), 'big.zip');
    expect(result.status).toBe('ready');
    expect(entries.find((e) => e.path === 'big.txt')?.size).toBeGreaterThan(16 * MB);
    expect(entries.map((e) => `${e.sha256}  ${e.path}`).join('\n')).toBe(sums.trim());
  });

  it('checks the stored entries of a zip upload where they lie and writes out only a nested archive', async () => {
    const dir = await tempDir();
    await threeDicoms(dir);
    await sh('echo note > n.txt && bsdtar --format zip --options zip:compression=store -cf inner.zip a.dcm n.txt', dir);
    await sh('bsdtar --format zip --options zip:compression=store -cf outer.zip a.dcm inner.zip c.dcm', dir);
    const outer = await readFile(path.join(dir, 'outer.zip'));
    const { result, entries } = await collect(path.join(dir, 'outer.zip'), 'outer.zip');
    expect(result.status).toBe('ready');
    expect(entries.map((e) => [e.path, e.kind, e.inUploadAt !== null, e.existed])).toEqual([
      ['a.dcm', 'dicom', true, false],
      ['inner.zip/a.dcm', 'dicom', false, true],
      ['inner.zip/n.txt', 'other', false, true],
      ['c.dcm', 'dicom', true, false],
    ]);
    const sums = Object.fromEntries((await sh('sha256sum a.dcm c.dcm', dir)).trim().split('\n').map((l) => l.split('  ').reverse()));
    for (const entry of entries.filter((e) => e.inUploadAt !== null)) {
      // The recorded range of the upload is the entry, byte for byte.
      const bytes = outer.subarray(entry.inUploadAt!, entry.inUploadAt! + entry.size);
      expect(bytes.equals(await readFile(path.join(dir, entry.path)))).toBe(true);
      expect(entry.sha256).toBe(sums[entry.path]);
    }
  });

  it('skips a stored entry of the upload whose bytes fail their CRC-32', async () => {
    const dir = await tempDir();
    await threeDicoms(dir);
    await sh('bsdtar --format zip --options zip:compression=store -cf good.zip a.dcm c.dcm', dir);
    const zip = await readFile(path.join(dir, 'good.zip'));
    const inC = zip.indexOf(Buffer.from('c.dcm')) + 'c.dcm'.length + 400;
    zip[inC] = zip[inC]! ^ 0xff;
    const { entries } = await collectDamaged(dir, 'flipped.zip', zip);
    expect(entries.map((e) => [e.path, e.kind, e.reason])).toEqual([
      ['a.dcm', 'dicom', null],
      ['c.dcm', 'skipped', 'corrupt or truncated data'],
    ]);
  });

  it('skips an entry whose path is also a folder of another, whichever comes first', async () => {
    const dir = await tempDir();
    // 'a' is a file in one tree and a folder in the other; bsdtar -C puts both in one zip.
    await sh('mkdir -p one two/a && echo file > one/a && echo inside > two/a/b.txt', dir);
    await sh('bsdtar --format zip -cf clash.zip -C one a -C ../two a/b.txt && bsdtar --format zip -cf clash2.zip -C two a/b.txt -C ../one a', dir);
    for (const [name, kept, clashing] of [['clash.zip', 'a', 'a/b.txt'], ['clash2.zip', 'a/b.txt', 'a']] as const) {
      const { result, entries } = await collect(path.join(dir, name), name);
      expect(result.status).toBe('ready');
      expect(entries.find((e) => e.path === kept)).toMatchObject({ kind: 'other', reason: null });
      expect(entries.find((e) => e.path === clashing)).toMatchObject({ kind: 'skipped', reason: 'duplicate path' });
    }
  });

  it('skips an entry whose local header is damaged, and keeps the others', async () => {
    const dir = await tempDir();
    await threeDicoms(dir);
    await sh('bsdtar --format zip -cf good.zip a.dcm c.dcm', dir);
    const zip = await readFile(path.join(dir, 'good.zip'));
    // The second local header's signature: its data can no longer be found.
    const second = zip.indexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04]), 4);
    zip.fill(0, second, second + 4);
    const { result, entries } = await collectDamaged(dir, 'broken.zip', zip);
    expect(result.status).toBe('ready');
    expect(entries.map((e) => [e.path, e.kind, e.reason])).toEqual([
      ['a.dcm', 'dicom', null],
      ['c.dcm', 'skipped', 'corrupt or truncated data'],
    ]);
  });
});
