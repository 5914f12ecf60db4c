import type { Dict } from 'dcmjs';
import { describe, expect, it } from 'vitest';
import { DeidentificationError, deidentify, isDeidentifiedBy, pseudonymOf, PSEUDONYM_PATTERN, replacementUid } from '../src/index.js';
import { decoderFor } from '../src/charset.js';
import { shiftValue } from '../src/dates.js';
import { text } from '../src/method.js';
import { dcmdump, fixture, KEY, OTHER_KEY, part10, read, toFile } from './helpers.js';

const BASIC = { profile: 'basic' as const, options: [] };
const DATES = { profile: 'basic' as const, options: ['retainLongitudinalModifiedDates' as const] };

/** s01 with identity planted in nested sequences and private tags, as a CD export may carry it. */
function plantedCt(): Uint8Array {
  const { meta, dict } = read(fixture('s01_CT_small.dcm'));
  const planted: Dict = {
    ...dict,
    '00100020': { vr: 'LO', Value: ['PLANTED-ID-1234'] },
    '00100010': { vr: 'PN', Value: [{ Alphabetic: 'Plantedname^Alice' }] },
    '00101002': { vr: 'SQ', Value: [{ '00100020': { vr: 'LO', Value: ['PLANTED-OTHER-ID'] }, '00100021': { vr: 'LO', Value: ['PLANTED ISSUER'] } }] },
    '00081120': { vr: 'SQ', Value: [{ '00081155': { vr: 'UI', Value: ['1.2.826.0.1.3680043.8.498.999'] } }] },
    '00081140': { vr: 'SQ', Value: [{ '00081150': { vr: 'UI', Value: ['1.2.840.10008.5.1.4.1.1.2'] }, '00081155': { vr: 'UI', Value: ['1.2.826.0.1.3680043.8.498.555'] },
      '00089215': { vr: 'SQ', Value: [{ '00080100': { vr: 'SH', Value: ['X'] }, '00100010': { vr: 'PN', Value: [{ Alphabetic: 'Deepname^Bob' }] }, '00191001': { vr: 'LO', Value: ['PLANTED DEEP PRIVATE'] } }] } }] },
    '00290010': { vr: 'LO', Value: ['PLANTED CREATOR'] },
    '00291001': { vr: 'LO', Value: ['PLANTED PRIVATE VALUE'] },
    '00321032': { vr: 'PN', Value: [{ Alphabetic: 'Requesting^Planted' }] },
  };
  const file = new (class { meta = meta; dict = planted })();
  return part10(file.dict, text(meta, '00020003'));
}

describe('deidentify', () => {
  it('leaves no planted value at any depth, in private tags or in nested sequences', () => {
    const { bytes, report } = deidentify(plantedCt(), BASIC, KEY);
    const dump = dcmdump(toFile(bytes));
    expect(dump.status).toBe(0);
    for (const planted of ['PLANTED', 'Planted', 'Alice', 'Deepname', '1.2.826.0.1.3680043.8.498.999', '1.2.826.0.1.3680043.8.498.555']) {
      expect(dump.text).not.toContain(planted);
    }
    expect(report.patientPseudonym).toBe(pseudonymOf('PLANTED-ID-1234', KEY));
    expect(report.counts.privateRemoved).toBeGreaterThan(2);
    const { dict } = read(bytes);
    const referenced = (dict['00081140']!.Value![0] as Dict);
    expect(text(referenced, '00081155')).toBe(replacementUid('1.2.826.0.1.3680043.8.498.555', KEY));
    expect(text(referenced, '00081150')).toBe('1.2.840.10008.5.1.4.1.1.2');
    expect(text((referenced['00089215']!.Value![0] as Dict), '00100010')).toBe(report.patientPseudonym);
  });

  it('names the profile, the options and the edition, with one code per option', () => {
    const options = ['retainLongitudinalModifiedDates', 'retainUIDs', 'cleanDescriptors'] as const;
    const { bytes } = deidentify(fixture('s01_CT_small.dcm'), { profile: 'basic', options: [...options] }, KEY);
    const { dict } = read(bytes);
    expect(text(dict, '00120062')).toBe('YES');
    expect(dict['00120063']!.Value!.slice(0, 4)).toEqual([
      'DICOM PS3.15 2024b Basic Application Confidentiality Profile',
      'Retain Longitudinal Temporal Information Modified Dates Option',
      'Clean Descriptors Option',
      'Retain UIDs Option',
    ]);
    expect((dict['00120064']!.Value as Dict[]).map((item) => text(item, '00080100'))).toEqual(['113100', '113107', '113105', '113110']);
    expect(text(dict, '00280303')).toBe('MODIFIED');
    expect(text(dict, '00080018')).toBe(text(read(fixture('s01_CT_small.dcm')).dict, '00080018'));
  });

  it('shifts every date of a patient by the same days, the same in every file, and keeps times', () => {
    const original = read(fixture('s01_CT_small.dcm')).dict;
    const a = read(deidentify(fixture('s01_CT_small.dcm'), DATES, KEY).bytes).dict;
    const days = (from: string, to: string) => (Date.parse(`${from.slice(0, 4)}-${from.slice(4, 6)}-${from.slice(6)}`) - Date.parse(`${to.slice(0, 4)}-${to.slice(4, 6)}-${to.slice(6)}`)) / 86_400_000;
    const shift = days(text(original, '00080020'), text(a, '00080020'));
    expect(shift).toBeGreaterThan(0);
    expect(days(text(original, '00080022'), text(a, '00080022'))).toBe(shift);
    expect(text(a, '00080030')).toBe(text(original, '00080030'));
    const other = read(deidentify(fixture('s01_CT_small.dcm'), DATES, OTHER_KEY).bytes).dict;
    expect(text(other, '00080020')).not.toBe(text(a, '00080020'));
  });

  it('returns its own output unchanged, and recognises it only with the same key and policy', () => {
    const first = deidentify(fixture('s03_CT_series5N_2062.dcm'), BASIC, KEY);
    expect(isDeidentifiedBy(first.bytes, BASIC, KEY)).toBe(true);
    expect(isDeidentifiedBy(first.bytes, BASIC, OTHER_KEY)).toBe(false);
    expect(isDeidentifiedBy(first.bytes, DATES, KEY)).toBe(false);
    expect(isDeidentifiedBy(fixture('s03_CT_series5N_2062.dcm'), BASIC, KEY)).toBe(false);
    const again = deidentify(first.bytes, BASIC, KEY);
    expect(again.report.alreadyDeidentified).toBe(true);
    expect(again.bytes).toBe(first.bytes);
    expect(deidentify(first.bytes, BASIC, OTHER_KEY).report.alreadyDeidentified).toBe(false);
  });

  it('is not fooled by a file that copies the marks with another patient', () => {
    const first = deidentify(fixture('s03_CT_series5N_2062.dcm'), BASIC, KEY);
    const { meta, dict } = read(first.bytes);
    dict['00100020'] = { vr: 'LO', Value: ['REAL-PATIENT-42'] };
    expect(isDeidentifiedBy(part10(dict, text(meta, '00020003')), BASIC, KEY)).toBe(false);
  });

  it('derives the pseudonym from name and birth date when there is no Patient ID', () => {
    const dict: Dict = { '00100010': { vr: 'PN', Value: [{ Alphabetic: 'Noid^Carol' }] }, '00100030': { vr: 'DA', Value: ['19700101'] },
      '00080018': { vr: 'UI', Value: ['1.2.826.0.1.3680043.8.498.3'] } };
    const a = deidentify(part10(dict), BASIC, KEY).report.patientPseudonym;
    expect(a).toMatch(PSEUDONYM_PATTERN);
    expect(deidentify(part10({ ...dict, '00080018': { vr: 'UI', Value: ['1.2.826.0.1.3680043.8.498.4'] } }), BASIC, KEY).report.patientPseudonym).toBe(a);
    expect(a).not.toBe(pseudonymOf('Noid^Carol', KEY));
  });

  it('leaves a DICOMDIR out, and rejects what is not DICOM or is cut short, in words', () => {
    const reject = (bytes: Uint8Array) => { try { deidentify(bytes, BASIC, KEY); } catch (e) { return e; } return undefined; };
    expect(reject(fixture('s40_DICOMDIR'))).toMatchObject({ code: 'dicomdir', message: expect.stringContaining('left out') });
    expect(reject(new TextEncoder().encode('%PDF-1.4 not an image at all, just some text'))).toMatchObject({ code: 'not-dicom' });
    const ct = fixture('s01_CT_small.dcm');
    const cut = reject(ct.subarray(0, ct.length - 1000));
    expect(cut).toBeInstanceOf(DeidentificationError);
    expect(cut).toMatchObject({ code: 'unreadable', message: expect.stringContaining('cannot be de-identified') });
  });

  it('refuses an unknown option and a short key', () => {
    expect(() => deidentify(fixture('s01_CT_small.dcm'), { profile: 'basic', options: ['keepEverything' as never] }, KEY)).toThrow(/unknown/);
    expect(() => deidentify(fixture('s01_CT_small.dcm'), BASIC, new Uint8Array(8))).toThrow(/16 bytes/);
  });
});

describe('keyed values', () => {
  it('pseudonyms are readable, stable per key and differ between keys', () => {
    expect(pseudonymOf('12345', KEY)).toMatch(PSEUDONYM_PATTERN);
    expect(pseudonymOf('12345', KEY)).toBe(pseudonymOf('12345', KEY));
    expect(pseudonymOf('12345', KEY)).not.toBe(pseudonymOf('12345', OTHER_KEY));
    expect(pseudonymOf('12345', KEY)).not.toBe(pseudonymOf('12346', KEY));
  });

  it('UIDs are 2.25 UIDs below 2^128 and at most 64 characters', () => {
    for (let i = 0; i < 200; i++) {
      const uid = replacementUid(`1.2.3.${i}`, KEY);
      expect(uid).toMatch(/^2\.25\.(0|[1-9]\d*)$/);
      expect(uid.length).toBeLessThanOrEqual(64);
      expect(BigInt(uid.slice(5)) < 2n ** 128n).toBe(true);
    }
  });

  it('shifts dates, date-times with their time and partial dates', () => {
    expect(shiftValue('DA', '20200301', 1)).toBe('20200229');
    expect(shiftValue('DT', '20200301101010.5+0100', 1)).toBe('20200229101010.5+0100');
    expect(shiftValue('DT', '2020', 400)).toBe('2018');
    expect(shiftValue('DA', 'not a date', 1)).toBeUndefined();
  });
});

describe('character sets', () => {
  it('reads ISO 2022 Japanese person names (PS3.5 H.3.1)', () => {
    const esc = 0x1b;
    const bytes = new Uint8Array([...'Yamada^Tarou='].map((c) => c.charCodeAt(0)).concat(
      [esc, 0x24, 0x42, 0x3b, 0x33, 0x45, 0x44, esc, 0x28, 0x42, 0x5e, esc, 0x24, 0x42, 0x42, 0x40, 0x4f, 0x3a, esc, 0x28, 0x42, 0x3d,
        esc, 0x24, 0x42, 0x24, 0x64, 0x24, 0x5e, 0x24, 0x40, esc, 0x28, 0x42, 0x5e, esc, 0x24, 0x42, 0x24, 0x3f, 0x24, 0x6d, 0x24, 0x26, esc, 0x28, 0x42]));
    expect(decoderFor(['', 'ISO 2022 IR 87']).decode(bytes)).toBe('Yamada^Tarou=山田^太郎=やまだ^たろう');
  });

  it('reads half-width katakana under ISO 2022 IR 13', () => {
    expect(decoderFor(['ISO 2022 IR 13', 'ISO 2022 IR 87']).decode(new Uint8Array([0xd4, 0xcf, 0xc0, 0xde]))).toBe('ﾔﾏﾀﾞ');
  });

  it('refuses a character set it cannot read, in words', () => {
    expect(() => decoderFor(['ISO_IR 999'])).toThrow(/cannot be read here/);
  });
});
