// The shared DICOM corpus through the engine, checked by dcmtk, an independent reader.
import { describe, expect, it } from 'vitest';
import { deidentify, deidentifyParts, NeedsWholeFile, type DeidParts, type DeidResult } from '../src/index.js';
import type { Dict } from 'dcmjs';
import { text } from '../src/method.js';
import { TABLE_E1_1 } from '../src/table-e1-1.js';
import { corpus, dcmdump, dcmftest, fixture, KEY, OTHER_KEY, pixelDataByDcmtk, read, toFile } from './helpers.js';

const BASIC = { profile: 'basic' as const, options: [] };
const LEFT_OUT = new Set(['s40_DICOMDIR']);
/** Values of the original that identify the patient, the visit or the instance: never anywhere in the output. */
const STRICT = ['00100010', '00100020', '00101000', '00100030', '00080050', '00080090', '00081050', '0020000D', '0020000E',
  '00080018', '00101040', '00102154'];
/** Values that may equal a value the standard keeps (an institution named like the manufacturer). */
const LOOSE = ['00080080', '00080081', '00200010', '00081010', '00081040'];
const IN_TABLE = new Set(TABLE_E1_1.map(([tag]) => tag));

function identifyingValues(bytes: Uint8Array): { strict: string[]; loose: string[] } {
  let dict: Dict;
  try { dict = read(bytes).dict; } catch { return { strict: [], loose: [] }; }
  // Short values (a StudyID of "0010") would be found in any dump's tag numbers.
  const values = (tags: string[]) => tags.map((tag) => text(dict, tag))
    .filter((v) => v.replace(/[\s^=]/g, '').length >= 5 && !/^(REMOVED|ANONYMOUS|ANONYMIZED)$/i.test(v));
  return { strict: values(STRICT), loose: values(LOOSE) };
}

describe('the shared DICOM corpus', () => {
  for (const name of corpus().filter((n) => !LEFT_OUT.has(n))) {
    it(`${name}: dcmtk reads the output, Pixel Data is byte-identical and no identifying value is left`, () => {
      const input = fixture(name);
      const result: DeidResult = deidentify(input, BASIC, KEY);
      const path = toFile(result.bytes, `out-${name}`);
      const dump = dcmdump(path);
      expect(dump.status, dump.stderr).toBe(0);
      expect(dump.stderr).not.toMatch(/^E:/m);
      expect(dcmftest(path)).toContain('yes');
      const pixelsIn = pixelDataByDcmtk(toFile(input, `in-${name}`));
      const pixelsOut = pixelDataByDcmtk(path);
      expect(pixelsOut.length > 0).toBe(pixelsIn.length > 0);
      expect(pixelsOut).toEqual(pixelsIn.slice(pixelsIn.length - pixelsOut.length));
      const { strict, loose } = identifyingValues(input);
      for (const value of strict) expect(dump.text, `${value} survived`).not.toContain(value);
      // An institution named like the manufacturer (kept by the standard) is looked for only where the table acts.
      const tableLines = dump.text.split('\n').filter((line) => { const tag = /^\s*\((\w{4}),(\w{4})\)/.exec(line); return tag && IN_TABLE.has((tag[1]! + tag[2]!).toUpperCase()); });
      for (const value of loose) expect(tableLines.join('\n'), `${value} survived`).not.toContain(value);
      expect(dump.text).toContain(result.report.patientPseudonym);
      expect(dump.text).toMatch(/PatientIdentityRemoved.*\n?.*|\[YES\]/);
      // Deterministic: resumable uploads resend the same bytes.
      expect(Buffer.from(deidentify(input, BASIC, KEY).bytes).equals(Buffer.from(result.bytes))).toBe(true);
    });
  }

  it('gives the same output as parts, from the whole file or from its first bytes, without copying Pixel Data', () => {
    const joined = (input: Uint8Array, parts: DeidParts) =>
      Buffer.concat([parts.head, parts.tail ? input.subarray(parts.tail.start, parts.tail.end) : new Uint8Array(0)]);
    let fromPrefix = 0;
    let wholeAsked = 0;
    for (const name of corpus().filter((n) => !LEFT_OUT.has(n))) {
      const input = fixture(name);
      let whole: DeidResult;
      try { whole = deidentify(input, BASIC, KEY); } catch { continue; }
      const parts = deidentifyParts(input, BASIC, KEY);
      expect(joined(input, parts).equals(Buffer.from(whole.bytes)), name).toBe(true);
      // Pixel Data is a range of the input, never in the head (a deflated input's is in its inflated copy).
      if (parts.tail && !parts.report.alreadyDeidentified) expect(parts.head.length, name).toBeLessThan(whole.bytes.length - (parts.tail.end - parts.tail.start) + 1);
      for (const first of [4096, 65536]) {
        if (input.length <= first) continue;
        try {
          const prefixed = deidentifyParts(input.subarray(0, first), BASIC, KEY, input.length);
          expect(joined(input, prefixed).equals(Buffer.from(whole.bytes)), name).toBe(true);
          fromPrefix += 1;
        } catch (error) {
          expect(error, name).toBeInstanceOf(NeedsWholeFile);
          wholeAsked += 1;
        }
      }
    }
    // Files were de-identified from their first bytes; some (encapsulated, big headers) asked for all.
    expect(fromPrefix).toBeGreaterThan(5);
    expect(wholeAsked).toBeGreaterThan(0);
  });

  it('gives the same pseudonym and UIDs for a series with the same key, and others with another key', () => {
    const series = ['s03_CT_series5N_2062.dcm', 's04_CT_series5N_2392.dcm', 's05_CT_series5N_2693.dcm'];
    const uids = (key: Uint8Array) => series.map((n) => {
      const { dict } = read(deidentify(fixture(n), BASIC, key).bytes);
      return { patient: text(dict, '00100020'), study: text(dict, '0020000D'), series: text(dict, '0020000E'), sop: text(dict, '00080018') };
    });
    const a = uids(KEY);
    const b = uids(OTHER_KEY);
    expect(new Set(a.map((x) => x.patient)).size).toBe(1);
    expect(new Set(a.map((x) => x.study)).size).toBe(1);
    expect(new Set(a.map((x) => x.sop)).size).toBe(3);
    expect(uids(KEY)).toEqual(a);
    a.forEach((x, i) => {
      expect(b[i]!.patient).not.toBe(x.patient);
      expect(b[i]!.study).not.toBe(x.study);
      expect(b[i]!.sop).not.toBe(x.sop);
    });
  });

  it('keeps the file meta consistent: the instance UID follows the dataset, the transfer syntax is kept', () => {
    const input = fixture('s14_US_multiframe_jpeg_baseline_ybr.dcm');
    const { meta, dict } = read(deidentify(input, BASIC, KEY).bytes);
    expect(text(meta, '00020003')).toBe(text(dict, '00080018'));
    expect(text(meta, '00020010')).toBe(text(read(input).meta, '00020010'));
    expect(text(dict, '00080016')).toBe(text(read(input).dict, '00080016'));
  });

  it('writes a deflated input uncompressed and says so', () => {
    const { report, bytes } = deidentify(fixture('s34_OT_deflated_image_dfl.dcm'), BASIC, KEY);
    expect(report.transferSyntaxChanged).toEqual({ from: '1.2.840.10008.1.2.1.99', to: '1.2.840.10008.1.2.1' });
    expect(text(read(bytes).meta, '00020010')).toBe('1.2.840.10008.1.2.1');
  });

  it('reads an input that is a view into a larger buffer (a Node Buffer from readFile) as it reads a copy', () => {
    for (const name of ['s34_OT_deflated_image_dfl.dcm', 's01_CT_small.dcm']) {
      const alone = fixture(name);
      // Node's Buffers share pooled memory: the bytes sit at an offset of an ArrayBuffer with others around them.
      const pool = new Uint8Array(alone.length + 96).fill(0xa5);
      pool.set(alone, 48);
      const view = pool.subarray(48, 48 + alone.length);
      expect(Buffer.from(deidentify(view, BASIC, KEY).bytes).equals(Buffer.from(deidentify(alone, BASIC, KEY).bytes))).toBe(true);
      expect(Buffer.from(deidentify(Buffer.from(pool.buffer, 48, alone.length), BASIC, KEY).bytes).equals(Buffer.from(deidentify(alone, BASIC, KEY).bytes))).toBe(true);
    }
  });

  it('adds a file meta header to a dataset that came without one', () => {
    const { report, bytes } = deidentify(fixture('s23_RTSTRUCT_no_preamble_no_meta.dcm'), BASIC, KEY);
    expect(report.fileMetaAdded).toBe(true);
    const { meta, dict } = read(bytes);
    expect(text(meta, '00020003')).toBe(text(dict, '00080018'));
    expect(text(meta, '00020010')).toBe('1.2.840.10008.1.2');
  });

  it('re-encodes ISO 2022 Japanese text as UTF-8 and says so', () => {
    const { report, bytes } = deidentify(fixture('s09_CT_J2K_lossless_japanese_charset.dcm'), BASIC, KEY);
    expect(report.characterSetChanged).toEqual({ from: 'ISO 2022 IR 13\\ISO 2022 IR 87', to: 'ISO_IR 192' });
    expect(text(read(bytes).dict, '00080005')).toBe('ISO_IR 192');
    expect(deidentify(fixture('s37_OT_charset_iso2022_japanese.dcm'), BASIC, KEY).report.characterSetChanged?.from).toBe('\\ISO 2022 IR 87');
  });

  it('flags ultrasound, secondary captures and "other" images for review, and not a CT that says nothing', () => {
    expect(deidentify(fixture('s13_US_rgb_bigendian.dcm'), BASIC, KEY).report).toMatchObject({ needsReview: true, reviewReason: expect.stringContaining('ultrasound') });
    expect(deidentify(fixture('s30_OT_rgb_jpeg_baseline.dcm'), BASIC, KEY).report.needsReview).toBe(true);
    expect(deidentify(fixture('s01_CT_small.dcm'), BASIC, KEY).report).toMatchObject({ needsReview: false });
  });
});
