// The patient fields the project's studies show (issue 14, item 5), checked against dcmtk.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDicomHeader } from '../../src/ingest/dicom/dicom-header.js';
import { DICOM_DIR, dicomFixtures, sh } from './helpers.js';

const MAX = 16 << 20;

/** dcmdump's PatientName and PatientID, converted to UTF-8 by dcmtk itself (+U8). */
async function dcmdumpPatient(file: string): Promise<{ patient_name: string | null; patient_id: string | null }> {
  const out = await sh(`dcmdump -q +U8 -s +P 0010,0010 +P 0010,0020 '${file}'`, DICOM_DIR);
  const value = (tag: string) => {
    const match = new RegExp(`^\\(${tag}\\) \\S\\S \\[(.*?)\\]`, 'm').exec(out);
    const text = match?.[1]?.trim();
    return text === undefined || text === '' ? null : text;
  };
  return { patient_name: value('0010,0010'), patient_id: value('0010,0020') };
}

describe('readDicomHeader reads the patient', () => {
  it('agrees with dcmdump on PatientName and PatientID in every fixture, character sets applied', async () => {
    // The DICOMDIR's patients are in its directory records, not its own; dcmtk here cannot convert
    // ISO 2022 Japanese, which has its own case below.
    const names = (await dicomFixtures()).filter((n) => !n.includes('DICOMDIR') && !n.includes('iso2022'));
    expect(names.length).toBeGreaterThan(10);
    let compared = 0;
    for (const name of names) {
      const header = await readDicomHeader(path.join(DICOM_DIR, name), MAX);
      if (!header.ok) throw new Error(`${name}: ${header.reason}`);
      const mine = { patient_name: header.fields.patient_name, patient_id: header.fields.patient_id };
      const dcmtk = await dcmdumpPatient(name);
      expect([name, mine]).toEqual([name, dcmtk]);
      if (dcmtk.patient_name !== null) compared += 1;
    }
    expect(compared).toBeGreaterThan(10);
  });

  it('reads names in UTF-8, Arabic and ISO 2022 Japanese as text, and an empty ID as null', async () => {
    const fields = async (file: string) => {
      const header = await readDicomHeader(path.join(DICOM_DIR, file), MAX);
      if (!header.ok) throw new Error(header.reason);
      return header.fields;
    };
    expect(await fields('s36_OT_charset_utf8_chinese.dcm')).toMatchObject({ patient_name: 'Wang^XiaoDong=王^小東=', patient_id: 'X1EXAMPLE' });
    expect(await fields('s37_OT_charset_iso2022_japanese.dcm')).toMatchObject({
      patient_name: 'Yamada^Tarou=山田^太郎=やまだ^たろう',
      patient_id: 'H31EXAMPLE',
    });
    expect((await fields('s38_OT_charset_arabic_iso_ir127.dcm')).patient_name).toBe('قباني^لنزار');
    expect(await fields('s34_OT_deflated_image_dfl.dcm')).toMatchObject({ patient_name: '^^^^', patient_id: null });
    expect(await fields('s24_RTIONPLAN_explicitLE_no_meta.dcm')).toMatchObject({ patient_name: null, patient_id: null });
  });
});
