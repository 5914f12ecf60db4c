import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rar4Stored } from './archive-writers.js';
import { DICOM_DIR, FIXTURES, collect, dcmdumpTags, dicomFixtures, sh, tempDir } from './helpers.js';

/** A folder of the real DICOM fixtures (plus a text file), as users send them. */
async function studyFolder(): Promise<{ dir: string; names: string[] }> {
  const dir = await tempDir();
  await mkdir(path.join(dir, 'study/series'), { recursive: true });
  const names = await dicomFixtures();
  for (const name of names) await copyFile(path.join(DICOM_DIR, name), path.join(dir, 'study/series', name));
  await writeFile(path.join(dir, 'study/readme.txt'), 'not DICOM\n');
  return { dir, names };
}

/**
 * What dcmdump says the folder holds: distinct studies and series that its DICOM files name
 * (DICOMDIR excluded), distinct instances, copies of an instance already seen, and files that
 * name no instance (unreadable).
 */
async function expectedCounts(names: readonly string[]) {
  const studies = new Set<string>();
  const series = new Set<string>();
  const instances = new Set<string>();
  let duplicates = 0;
  let withoutSop = 0;
  for (const name of names.filter((n) => !n.includes('DICOMDIR'))) {
    const d = await dcmdumpTags(path.join(DICOM_DIR, name), ['0020,000d', '0020,000e', '0008,0018']);
    const sop = d['0008,0018'];
    if (d['0020,000d']) studies.add(d['0020,000d']);
    if (d['0020,000e']) series.add(d['0020,000e']);
    if (sop === null || sop === undefined) withoutSop += 1;
    else if (instances.has(sop)) duplicates += 1;
    else instances.add(sop);
  }
  return { studies: studies.size, series: series.size, instances: instances.size, duplicates, withoutSop, sopUids: instances };
}

const ARCHIVERS: Record<string, string> = {
  'study.zip': 'bsdtar --format zip -cf study.zip study',
  'study.7z': '7zz a -bso0 -bsp0 study.7z study',
  'study.tar': 'bsdtar -cf study.tar study',
  'study.tar.gz': 'bsdtar -czf study.tar.gz study',
  'study.tgz': 'bsdtar -cf - study | gzip > study.tgz',
  'study.tar.bz2': 'bsdtar -cf - study | bzip2 > study.tar.bz2',
  'study.tar.xz': 'bsdtar -cf - study | xz > study.tar.xz',
  'study.tar.lzma': 'bsdtar -cf - study | xz --format=lzma > study.tar.lzma',
};

describe('ingestUpload on every archive format', () => {
  it('indexes the same studies, series and instances as dcmdump, in every format', async () => {
    const { dir, names } = await studyFolder();
    const expected = await expectedCounts(names);
    await sh(Object.values(ARCHIVERS).join(' && '), dir);
    const sequences: string[][] = [];
    for (const archive of Object.keys(ARCHIVERS)) {
      const { result, entries } = await collect(path.join(dir, archive), archive);
      expect([archive, result.status, result.error]).toEqual([archive, 'ready', null]);
      expect([archive, result.summary]).toEqual([
        archive,
        {
          // Every file of the folder, each counted once: the instances, the DICOMDIR and the readme.
          entries: entries.length,
          studies: expected.studies,
          series: expected.series,
          instances: expected.instances,
          duplicates: expected.duplicates,
          conflicts: 0,
          in_project: 0,
          other: 2,
          dicomdirs: 1,
          unreadable: expected.withoutSop,
          unreadable_reasons: expected.withoutSop > 0 ? { 'no SOP Instance UID': expected.withoutSop } : {},
          skipped: 0,
          skipped_reasons: {},
        },
      ]);
      const sops = new Set(entries.filter((e) => e.kind === 'dicom').map((e) => e.dicom?.sop_instance_uid));
      for (const uid of expected.sopUids) expect(sops.has(uid)).toBe(true);
      // A tar upload's members are read where they lie (an offset into the upload), never written.
      expect(entries.every((e) => (archive === 'study.tar' ? e.inUploadAt !== null && !e.existed : e.existed) && e.sha256 !== null)).toBe(true);
      expect(entries.find((e) => e.path === 'study/readme.txt')?.kind).toBe('other');
      expect(entries.find((e) => e.path === 'study/series/s40_DICOMDIR')?.kind).toBe('other');
      sequences.push(entries.map((e) => e.path).sort());
    }
    for (const sequence of sequences) expect(sequence).toEqual(sequences[0]);
  });

  it('hashes entries like sha256sum and names them by their path inside the archive', async () => {
    const { dir } = await studyFolder();
    await sh(ARCHIVERS['study.zip']!, dir);
    const { entries } = await collect(path.join(dir, 'study.zip'), 'study.zip');
    const ct = entries.find((e) => e.path === 'study/series/s01_CT_small.dcm')!;
    const sum = (await sh('sha256sum study/series/s01_CT_small.dcm', dir)).split(' ')[0];
    expect(ct).toMatchObject({ sha256: sum, size: 39206, kind: 'dicom', reason: null });
  });

  it('emits the same sequence every time (a restarted job resumes where it was)', async () => {
    const { dir } = await studyFolder();
    await sh(ARCHIVERS['study.7z']!, dir);
    const first = await collect(path.join(dir, 'study.7z'), 'study.7z');
    const second = await collect(path.join(dir, 'study.7z'), 'study.7z');
    expect(second.entries.map((e) => [e.path, e.sha256])).toEqual(first.entries.map((e) => [e.path, e.sha256]));
  });

  it('emits the same sequence from a zip with one 7-Zip thread or two', async () => {
    const { dir } = await studyFolder();
    await sh(ARCHIVERS['study.zip']!, dir);
    const one = await collect(path.join(dir, 'study.zip'), 'study.zip', { threads: 1 });
    const two = await collect(path.join(dir, 'study.zip'), 'study.zip', { threads: 2 });
    expect(one.entries.length).toBeGreaterThanOrEqual(16);
    expect(two.entries.map((e) => [e.path, e.sha256, e.kind])).toEqual(one.entries.map((e) => [e.path, e.sha256, e.kind]));
    const listed = (await sh('bsdtar -tf study.zip', dir)).split('\n').filter((n) => n !== '' && !n.endsWith('/'));
    expect(two.entries.map((e) => e.path)).toEqual(listed);
  });

  it('treats a directly uploaded .dcm as one entry, and the upload file as the entry itself', async () => {
    const file = path.join(DICOM_DIR, 's10_MR_small_implicit.dcm');
    const { result, entries } = await collect(file, 'scan.DCM');
    expect(result.summary).toMatchObject({ studies: 1, series: 1, instances: 1, other: 0 });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ path: 'scan.DCM', kind: 'dicom', tempPath: file, inputIsEntry: true });
    expect((await readFile(file)).length).toBe(9702);
  });

  it('unpacks a .dcm.gz to the DICOM it holds', async () => {
    const dir = await tempDir();
    await copyFile(path.join(DICOM_DIR, 's13_US_rgb_bigendian.dcm'), path.join(dir, 'us.dcm'));
    await sh('gzip us.dcm', dir);
    const { result, entries } = await collect(path.join(dir, 'us.dcm.gz'), 'us.dcm.gz');
    expect(result.summary).toMatchObject({ instances: 1 });
    expect(entries.map((e) => [e.path, e.kind, e.dicom?.modality])).toEqual([['us.dcm', 'dicom', 'US']]);
  });

  it('follows nested archives and names entries through them', async () => {
    const { dir } = await studyFolder();
    await sh('bsdtar -czf inner.tar.gz study && 7zz a -bso0 -bsp0 middle.7z inner.tar.gz && bsdtar --format zip -cf outer.zip middle.7z', dir);
    const { result, entries } = await collect(path.join(dir, 'outer.zip'), 'outer.zip');
    expect(result.status).toBe('ready');
    expect(entries.map((e) => e.path)).toContain('middle.7z/inner.tar.gz/study/series/s01_CT_small.dcm');
    expect(result.summary.instances).toBeGreaterThan(10);
  });
});

describe('order with nested archives', () => {
  it('emits an inner archive\'s entries in its place, between the outer entries around it', async () => {
    const dir = await tempDir();
    await sh(`cp '${DICOM_DIR}/s03_CT_series5N_2062.dcm' a.dcm && cp '${DICOM_DIR}/s04_CT_series5N_2392.dcm' m.dcm && cp '${DICOM_DIR}/s05_CT_series5N_2693.dcm' z.dcm`, dir);
    await sh('bsdtar --format zip -cf inner.zip m.dcm && bsdtar -cf inner.tar m.dcm && xz -k inner.tar', dir);
    await sh('bsdtar --format zip -cf outer.zip a.dcm inner.zip inner.tar.xz z.dcm', dir);
    const { result, entries } = await collect(path.join(dir, 'outer.zip'), 'outer.zip');
    expect(entries.map((e) => e.path)).toEqual(['a.dcm', 'inner.zip/m.dcm', 'inner.tar.xz/m.dcm', 'z.dcm']);
    expect(result.summary).toMatchObject({ studies: 1, series: 1, instances: 3, other: 0, skipped: 0 });
  });
});

describe('RAR', () => {
  it('reads a RAR 4 holding real DICOM (stored, written by our helper)', async () => {
    const dir = await tempDir();
    const names = ['s03_CT_series5N_2062.dcm', 's04_CT_series5N_2392.dcm', 's05_CT_series5N_2693.dcm'];
    const files = await Promise.all(names.map(async (n) => ({ name: `ct/${n}`, data: await readFile(path.join(DICOM_DIR, n)) })));
    await writeFile(path.join(dir, 'ct.rar'), rar4Stored(files));
    const { result, entries } = await collect(path.join(dir, 'ct.rar'), 'ct.rar');
    expect(result.summary).toMatchObject({ studies: 1, series: 1, instances: 3, skipped: 0 });
    const d = await dcmdumpTags(path.join(DICOM_DIR, names[0]!), ['0008,0018']);
    expect(entries[0]).toMatchObject({ path: `ct/${names[0]}`, kind: 'dicom', dicom: { sop_instance_uid: d['0008,0018'] } });
  });

  it("reads libarchive's RAR 4 and RAR 5 test archives, skipping their links", async () => {
    const rar = path.join(FIXTURES, 'rar');
    const v4 = await collect(path.join(rar, 'test_read_format_rar_unicode.rar'), 'u.rar');
    expect(v4.result.status).toBe('ready');
    expect(v4.entries.map((e) => e.path)).toContain('表だよ/漢字長いファイル名long-filename-in-漢字.txt');
    const v5 = await collect(path.join(rar, 'test_read_format_rar5_unicode.rar'), 'u.rar');
    expect(v5.result.summary).toMatchObject({ other: 1, skipped: 3, skipped_reasons: { 'hard link': 1, 'symbolic link': 2 } });
    const nested = await collect(path.join(rar, 'test_read_format_rar5_zip_in_rar.rar'), 'n.rar');
    expect(nested.entries.map((e) => e.path)).toEqual(['payload/inner.zip/THIS_IS_INSIDE_THE_ZIP.txt', 'payload/real_after.txt']);
  });
});
