// The server's quick recognition of the engine's own output must say exactly what the full engine
// says of it, and never recognise what the engine would still change.
import { describe, expect, it } from 'vitest';
import { deidentify, recogniseOwnOutput, type Option } from '../src/index.js';
import { corpus, fixture, KEY, OTHER_KEY } from './helpers.js';

const BASIC = { profile: 'basic' as const, options: [] as Option[] };
const WITH_DATES = { profile: 'basic' as const, options: ['retainLongitudinalModifiedDates'] as Option[] };

describe('recogniseOwnOutput', () => {
  for (const name of corpus().filter((n) => n !== 's40_DICOMDIR')) {
    it(`${name}: the engine's output gets the report the full engine gives it; the input, another key or policy get none`, () => {
      const input = fixture(name);
      const made = deidentify(input, BASIC, KEY).bytes;
      const full = deidentify(made, BASIC, KEY);
      expect(full.report.alreadyDeidentified).toBe(true);
      expect(recogniseOwnOutput(made, BASIC, KEY)).toEqual(full.report);
      expect(recogniseOwnOutput(input, BASIC, KEY)).toBeNull();
      expect(recogniseOwnOutput(made, BASIC, OTHER_KEY)).toBeNull();
      expect(recogniseOwnOutput(made, WITH_DATES, KEY)).toBeNull();
    });
  }

  it('does not recognise a DICOMDIR, a file cut short or bytes that are not DICOM', () => {
    expect(recogniseOwnOutput(fixture('s40_DICOMDIR'), BASIC, KEY)).toBeNull();
    const made = deidentify(fixture(corpus()[0]!), BASIC, KEY).bytes;
    expect(recogniseOwnOutput(made.subarray(0, 300), BASIC, KEY)).toBeNull();
    expect(recogniseOwnOutput(new TextEncoder().encode('not a DICOM file at all, only words'), BASIC, KEY)).toBeNull();
  });

  it('does not recognise an output whose pseudonym was changed afterwards (the keyed check covers it)', () => {
    const made = deidentify(fixture(corpus()[0]!), BASIC, KEY).bytes;
    const text = Buffer.from(made).toString('latin1');
    const pseudonym = /P-[0-9A-F]{10}/.exec(text)![0];
    const changed = Buffer.from(text.replaceAll(pseudonym, 'P-0000000000'), 'latin1');
    expect(recogniseOwnOutput(new Uint8Array(changed), BASIC, KEY)).toBeNull();
    expect(deidentify(new Uint8Array(changed), BASIC, KEY).report.alreadyDeidentified).toBe(false);
  });
});
