import { copyFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeDicomText } from '../../src/processing/dicom-charset.js';
import { dicomText, readDicomHeader } from '../../src/processing/dicom-header.js';
import { DICOM_DIR, dcmdumpTags, dicomFixtures, sh, tempDir } from './helpers.js';

const MAX = 16 << 20;

describe('readDicomHeader', () => {
  it('reads the same UIDs, modality, date and sizes as dcmdump from every fixture', async () => {
    const tags = ['0008,0018', '0020,000d', '0020,000e', '0008,0060', '0008,0020', '0002,0010', '0028,0010', '0028,0011', '0028,0008'];
    // dcmdump's +P also finds tags inside the DICOMDIR's directory records, which are not its own.
    for (const name of (await dicomFixtures()).filter((n) => !n.includes('DICOMDIR'))) {
      const file = path.join(DICOM_DIR, name);
      const header = await readDicomHeader(file, MAX);
      expect([name, header.ok]).toEqual([name, true]);
      if (!header.ok) continue;
      const d = await dcmdumpTags(file, tags);
      const number = (v: string | null) => (v === null ? null : Number(v));
      const expected = {
        sop_instance_uid: d['0008,0018'],
        study_instance_uid: d['0020,000d'],
        series_instance_uid: d['0020,000e'],
        modality: d['0008,0060'],
        study_date: d['0008,0020'],
        transfer_syntax_uid: d['0002,0010'],
        rows: number(d['0028,0010']!),
        columns: number(d['0028,0011']!),
        number_of_frames: number(d['0028,0008']!),
      };
      const f = header.fields;
      const actual = Object.fromEntries(Object.keys(expected).map((k) => [k, f[k as keyof typeof f]]));
      expect([name, actual]).toEqual([name, expected]);
      expect(header.isDicomdir).toBe(false);
    }
  });

  it('reads a DICOMDIR as a directory, with its own meta UIDs only', async () => {
    const file = path.join(DICOM_DIR, 's40_DICOMDIR');
    const header = await readDicomHeader(file, MAX);
    expect(header.ok && header.isDicomdir).toBe(true);
    const d = await dcmdumpTags(file, ['0002,0003']);
    expect(header.ok && header.fields).toMatchObject({ sop_instance_uid: d['0002,0003'], study_instance_uid: null, modality: null });
  });

  it('reads implicit VR, big endian, deflated and meta-less files', async () => {
    const read = async (name: string) => {
      const header = await readDicomHeader(path.join(DICOM_DIR, name), MAX);
      if (!header.ok) throw new Error(header.reason);
      return header.fields;
    };
    expect((await read('s10_MR_small_implicit.dcm')).transfer_syntax_uid).toBe('1.2.840.10008.1.2');
    expect((await read('s13_US_rgb_bigendian.dcm')).rows).toBe(60);
    expect((await read('s34_OT_deflated_image_dfl.dcm')).columns).toBe(512);
    expect((await read('s23_RTSTRUCT_no_preamble_no_meta.dcm')).modality).toBe('RTSTRUCT');
    expect((await read('s24_RTIONPLAN_explicitLE_no_meta.dcm')).study_date).toBe('20150515');
    expect((await read('s39_meta_missing_transfer_syntax.dcm')).sop_instance_uid).toBeNull();
  });

  it('applies the Specific Character Set: UTF-8, ISO 2022 Japanese, Arabic', async () => {
    const name = async (file: string) => {
      const header = await readDicomHeader(path.join(DICOM_DIR, file), MAX);
      if (!header.ok) throw new Error(header.reason);
      return dicomText(header, 'x00100010');
    };
    expect(await name('s36_OT_charset_utf8_chinese.dcm')).toBe('Wang^XiaoDong=王^小東=');
    expect(await name('s37_OT_charset_iso2022_japanese.dcm')).toBe('Yamada^Tarou=山田^太郎=やまだ^たろう');
    const arabic = (await sh(`dcmdump -q +U8 +P 0010,0010 s38_OT_charset_arabic_iso_ir127.dcm`, DICOM_DIR)).match(/\[(.*)\]/)![1];
    expect(await name('s38_OT_charset_arabic_iso_ir127.dcm')).toBe(arabic);
  });

  it('decodes Latin-1, GB18030 and Korean escape sequences', () => {
    expect(decodeDicomText(Buffer.from('M\xfcller^J\xf6rg ', 'latin1'), ['ISO_IR 100'])).toBe('Müller^Jörg');
    expect(decodeDicomText(Buffer.from([0xd5, 0xc5, 0x5e, 0xd0, 0xa1]), ['GB18030'])).toBe('张^小');
    const korean = Buffer.from([0x1b, 0x24, 0x29, 0x43, 0xb1, 0xe8, 0x5e, 0xc8, 0xf1]);
    expect(decodeDicomText(korean, ['', 'ISO 2022 IR 149'])).toBe('김^희');
  });

  it('reads on when the header is longer than the first read', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'big.dcm');
    await copyFile(path.join(DICOM_DIR, 's01_CT_small.dcm'), file);
    await writeFile(path.join(dir, 'comment.txt'), 'x'.repeat(300_000));
    await sh(`chmod u+w big.dcm && dcmodify -nb -if "(0020,4000)=comment.txt" big.dcm`, dir);
    const header = await readDicomHeader(file, MAX);
    expect(header.ok && header.fields.rows).toBe(128);
    const small = await readDicomHeader(file, 100_000);
    expect(small).toEqual({ ok: false, reason: 'DICOM header not found in the first 100000 bytes' });
  });

  it('reports truncated files and lying element lengths instead of throwing', async () => {
    const dir = await tempDir();
    const original = await readFile(path.join(DICOM_DIR, 's03_CT_series5N_2062.dcm'));
    await writeFile(path.join(dir, 'truncated.dcm'), original.subarray(0, 700));
    const lying = Buffer.from(original);
    const modality = lying.indexOf(Buffer.from([0x08, 0x00, 0x60, 0x00, 0x43, 0x53]));
    expect(modality).toBeGreaterThan(132);
    lying.writeUInt16LE(0xfffe, modality + 6);
    await writeFile(path.join(dir, 'lying.dcm'), lying);
    for (const name of ['truncated.dcm', 'lying.dcm']) {
      const header = await readDicomHeader(path.join(dir, name), MAX);
      expect(header.ok).toBe(false);
      if (!header.ok) expect(header.reason).toMatch(/^unreadable DICOM: /);
    }
  });
});
