import { copyFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TDicomFields } from '@portal/contract';
import { describe, expect, it } from 'vitest';
import { DETECT_BYTES, detectKind } from '../../src/ingest/detect/detect-kind.js';
import { decodeDicomText } from '../../src/ingest/dicom/dicom-charset.js';
import { dicomText, readDicomHeader } from '../../src/ingest/dicom/dicom-header.js';
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
      expect([name, header.warning]).toEqual([name, null]);
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

  it('keeps what a truncated file or a lying element length leaves readable, and says so', async () => {
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
      expect(header.ok && header.warning).toMatch(/^truncated or damaged DICOM header: only its first \d+ bytes could be read/);
      const d = await dcmdumpTags(path.join(dir, name), ['0002,0010', '0008,0018'], true);
      expect(header.ok && header.fields.transfer_syntax_uid).toBe(d['0002,0010']);
    }
    const lyingHeader = await readDicomHeader(path.join(dir, 'lying.dcm'), MAX);
    expect(lyingHeader.ok && lyingHeader.fields).toMatchObject({ modality: null, rows: null });
  });

  it('answers a file with no readable element as unreadable, in words', async () => {
    const dir = await tempDir();
    const garbage = Buffer.concat([Buffer.alloc(128), Buffer.from('DICM'), Buffer.from([0x02, 0x00, 0x00, 0x00, 0x55, 0x4c, 0xff, 0xff])]);
    await writeFile(path.join(dir, 'garbage.dcm'), Buffer.concat([garbage, Buffer.alloc(40, 0xee)]));
    const header = await readDicomHeader(path.join(dir, 'garbage.dcm'), MAX);
    expect(header).toEqual({ ok: false, reason: 'unreadable DICOM: not one element of its header could be read (the file is damaged, or not DICOM)' });
  });
});

/**
 * Five kinds of real files where the index once disagreed with dcmtk (issue 12, item 14), made here
 * from the shared fixtures by dcmtk and by byte surgery, and checked against dcmdump.
 */
describe('readDicomHeader agrees with dcmdump on awkward files', () => {
  const TAGS = ['0002,0010', '0008,0018', '0020,000d', '0028,0008', '0028,0011'];
  const fieldsOf = (f: TDicomFields) => ({
    '0002,0010': f.transfer_syntax_uid,
    '0008,0018': f.sop_instance_uid,
    '0020,000d': f.study_instance_uid,
    '0028,0008': f.number_of_frames === null ? null : String(f.number_of_frames),
    '0028,0011': f.columns === null ? null : String(f.columns),
  });
  const explicitLe = () => readFile(path.join(DICOM_DIR, 's01_CT_small.dcm'));
  const implicitWithSequence = () => readFile(path.join(DICOM_DIR, 's21_RTDOSE_implicit.dcm'));
  const dataSetStart = (file: Buffer) => 144 + file.readUInt32LE(140);

  async function compare(name: string, bytes: Buffer, recover = false) {
    const file = path.join(await tempDir(), name);
    await writeFile(file, bytes);
    expect(detectKind(bytes.subarray(0, DETECT_BYTES)), name).toBe('dicom');
    const header = await readDicomHeader(file, MAX);
    if (!header.ok) throw new Error(`${name}: ${header.reason}`);
    return { header, mine: fieldsOf(header.fields), dcmtk: await dcmdumpTags(file, TAGS, recover) };
  }

  it('reads the transfer syntax of a meta group holding only (0002,0010), without preamble', async () => {
    const source = await explicitLe();
    const ts = Buffer.from('1.2.840.10008.1.2.1\0');
    const element = Buffer.concat([Buffer.from([0x02, 0x00, 0x10, 0x00, 0x55, 0x49, ts.length, 0x00]), ts]);
    const { mine, dcmtk } = await compare('meta-ts-only.dcm', Buffer.concat([element, source.subarray(dataSetStart(source))]));
    expect(mine['0002,0010']).toBe('1.2.840.10008.1.2.1');
    expect(mine).toEqual(dcmtk);
  });

  it('keeps the meta header\'s transfer syntax when an invalid VR early in the data set stops reading', async () => {
    const source = await explicitLe();
    const damaged = Buffer.from(source);
    // (0008,0005) announced as OB: its 2-byte length is then read as a 4-byte one, past the end.
    damaged.write('OB', dataSetStart(source) + 4, 'latin1');
    const { header, mine, dcmtk } = await compare('bad-vr.dcm', damaged, true);
    expect(mine['0002,0010']).toBe('1.2.840.10008.1.2.1');
    expect(mine['0002,0010']).toBe(dcmtk['0002,0010']);
    expect(header.warning).toMatch(/^truncated or damaged DICOM header/);
  });

  it('recognises explicit VR big endian without preamble or meta header, by kind and in the index', async () => {
    const dir = await tempDir();
    await sh(`dcmconv +tb -F '${path.join(DICOM_DIR, 's01_CT_small.dcm')}' be.dcm`, dir);
    const { mine, dcmtk } = await compare('be.dcm', await readFile(path.join(dir, 'be.dcm')));
    expect(mine['0008,0018']).not.toBeNull();
    expect(mine['0028,0011']).toBe('128');
    expect(mine).toEqual(dcmtk);
  });

  it('reads every indexed field of a file truncated inside a sequence, and says it was truncated', async () => {
    const source = await implicitWithSequence();
    const sequence = source.indexOf(Buffer.from([0x0c, 0x30, 0x02, 0x00]));
    const inner = source.indexOf(Buffer.from([0x0c, 0x30, 0x20, 0x00]), sequence);
    expect(inner).toBeGreaterThan(sequence);
    const { header, mine, dcmtk } = await compare('cut-in-sequence.dcm', source.subarray(0, inner + 12), true);
    expect(mine['0008,0018']).not.toBeNull();
    expect(mine).toEqual(dcmtk);
    expect(header.warning).toMatch(/^truncated or damaged DICOM header: only its first \d+ bytes could be read/);
  });

  it('keeps an IS value that is not a number as written, as dcmdump shows it, never a guess', async () => {
    const damaged = Buffer.from(await implicitWithSequence());
    const frames = damaged.indexOf(Buffer.from([0x28, 0x00, 0x08, 0x00, 0x02, 0x00, 0x00, 0x00]));
    expect(damaged.toString('latin1', frames + 8, frames + 10)).toBe('15');
    damaged.write('1A', frames + 8, 'latin1');
    const { mine, dcmtk } = await compare('frames-1A.dcm', damaged);
    expect(dcmtk['0028,0008']).toBe('1A');
    expect(mine).toEqual(dcmtk);
  });
});
