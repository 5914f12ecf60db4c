import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isDicomFile, looksLikeDicom } from './dicom-sniff';

// The server's real DICOM fixtures (their sources are in that folder's NOTICE).
const FIXTURES = path.resolve(__dirname, '../../../../server/test/fixtures/dicom');

function fixture(name: string): File {
  return new File([readFileSync(path.join(FIXTURES, name))], name);
}

describe('DICOM by content', () => {
  it.each([
    ['s15_CR_6154', 'preamble and DICM, no extension'],
    ['s40_DICOMDIR', 'a CD index'],
    ['s23_RTSTRUCT_no_preamble_no_meta.dcm', 'implicit VR data set without preamble'],
    ['s24_RTIONPLAN_explicitLE_no_meta.dcm', 'explicit VR data set without preamble'],
    ['s13_US_rgb_bigendian.dcm', 'explicit VR big endian'],
  ])('recognises %s (%s)', async (name) => {
    expect(await isDicomFile(fixture(name))).toBe(true);
  });

  it.each([
    ['README.txt', new TextEncoder().encode('This CD was made by the hospital PACS. Insert it and run the viewer.')],
    ['zip local header', new Uint8Array([0x50, 0x4b, 3, 4, 20, 0, 0, 0, 8, 0])],
    ['a PNG', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])],
    ['group 0008 with an odd huge length', new Uint8Array([0x08, 0, 0x05, 0, 0xff, 0xff, 0xff, 0x7f])],
    ['too short', new Uint8Array([0x08, 0])],
  ])('refuses %s', async (_label, bytes) => {
    expect(await isDicomFile(new File([bytes], 'x'))).toBe(false);
  });

  it('needs DICM at offset 128 exactly', () => {
    const shifted = new Uint8Array(140);
    shifted.set(new TextEncoder().encode('DICM'), 129);
    expect(looksLikeDicom(shifted)).toBe(false);
    shifted.set(new TextEncoder().encode('DICM'), 128);
    expect(looksLikeDicom(shifted)).toBe(true);
  });
});
