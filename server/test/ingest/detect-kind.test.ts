import { copyFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DETECT_BYTES,
  acceptedExtension,
  decompressedName,
  detectKind,
  extensionMismatch,
  kindsForName,
} from '../../src/ingest/detect/detect-kind.js';
import { DICOM_DIR, sh, tempDir } from './helpers.js';

async function head(file: string): Promise<Uint8Array> {
  return (await readFile(file)).subarray(0, DETECT_BYTES);
}

describe('detectKind', () => {
  it('recognises every format as written by the real tools', async () => {
    const dir = await tempDir();
    await copyFile(path.join(DICOM_DIR, 's01_CT_small.dcm'), path.join(dir, 'a.dcm'));
    await sh(
      [
        'bsdtar --format zip -cf a.zip a.dcm',
        'bsdtar --format ustar -cf a.tar a.dcm',
        'bsdtar --format gnutar -cf gnu.tar a.dcm',
        'bsdtar --format v7 -cf v7.tar a.dcm',
        '7zz a -bso0 -bsp0 a.7z a.dcm',
        'gzip -k a.dcm',
        'bzip2 -k a.dcm',
        'xz -k a.dcm',
        'xz -k --format=lzma a.dcm',
      ].join(' && '),
      dir,
    );
    const expected: Record<string, string> = {
      'a.zip': 'zip',
      'a.tar': 'tar',
      'gnu.tar': 'tar',
      'v7.tar': 'tar',
      'a.7z': '7z',
      'a.dcm.gz': 'gzip',
      'a.dcm.bz2': 'bzip2',
      'a.dcm.xz': 'xz',
      'a.dcm.lzma': 'lzma',
      'a.dcm': 'dicom',
    };
    for (const [file, kind] of Object.entries(expected)) expect([file, detectKind(await head(path.join(dir, file)))]).toEqual([file, kind]);
  });

  it('recognises RAR 4 and RAR 5 by their signatures', async () => {
    const rar = path.resolve(DICOM_DIR, '../rar');
    expect(detectKind(await head(path.join(rar, 'test_read_format_rar_unicode.rar')))).toBe('rar4');
    expect(detectKind(await head(path.join(rar, 'test_read_format_rar5_unicode.rar')))).toBe('rar5');
  });

  it('recognises DICOM without preamble, with implicit and explicit VR', async () => {
    expect(detectKind(await head(path.join(DICOM_DIR, 's23_RTSTRUCT_no_preamble_no_meta.dcm')))).toBe('dicom');
    expect(detectKind(await head(path.join(DICOM_DIR, 's24_RTIONPLAN_explicitLE_no_meta.dcm')))).toBe('dicom');
    expect(detectKind(await head(path.join(DICOM_DIR, 's15_CR_6154')))).toBe('dicom');
  });

  it('calls text, empty files and look-alikes unknown', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'text'), 'BZh9 is not a bzip2 stream, and PK alone is not a zip\n'.repeat(20));
    expect(detectKind(await head(path.join(dir, 'text')))).toBe('unknown');
    expect(detectKind(new Uint8Array(0))).toBe('unknown');
    expect(detectKind(new Uint8Array(600))).toBe('unknown');
  });
});

describe('names and extensions', () => {
  it('accepts the ten archive and DICOM extensions and the tar shorthands, in any case', () => {
    for (const name of ['a.zip', 'a.RAR', 'a.7z', 'a.tar', 'a.gz', 'a.bz2', 'a.xz', 'a.lzma', 'a.dcm', 'a.DICOM', 'a.tgz', 'a.TAR.GZ', 'a.tbz2', 'a.tar.bz2', 'a.txz', 'a.tar.xz', 'a.tar.lzma', 'a.dcm.gz'])
      expect([name, acceptedExtension(name)]).toEqual([name, true]);
    for (const name of ['a.exe', 'a.txt', 'DICOMDIR', '.zip', 'zip', 'a.zip.exe']) expect([name, acceptedExtension(name)]).toEqual([name, false]);
  });

  it('maps names to the kinds they promise, and nothing for names without an extension', () => {
    expect(kindsForName('scan.TGZ')).toEqual(['gzip']);
    expect(kindsForName('x.rar')).toEqual(['rar4', 'rar5']);
    expect(kindsForName('study.tar.lzma')).toEqual(['lzma']);
    expect(kindsForName('IM0001')).toBeNull();
  });

  it('explains a mismatch in words a person can act on', () => {
    expect(extensionMismatch('study.zip', 'gzip')).toBe(
      'The file is named .zip but its content is a gzip stream; rename it to .gz or upload the original file.',
    );
    expect(extensionMismatch('scan.dcm', 'unknown')).toMatch(/^The file is named \.dcm but its content is neither an archive nor DICOM/);
    expect(extensionMismatch('a.tar.gz', 'gzip')).toBeNull();
    expect(extensionMismatch('a.rar', 'rar5')).toBeNull();
    expect(extensionMismatch('IM0001', 'dicom')).toBeNull();
  });

  it('names what a single-stream layer holds', () => {
    expect(decompressedName('x.dcm.gz')).toBe('x.dcm');
    expect(decompressedName('a/Study.TGZ')).toBe('a/Study.tar');
    expect(decompressedName('a.tar.xz')).toBe('a.tar');
    expect(decompressedName('blob')).toBe('blob');
  });
});
