// What the engine writes about itself into each instance, and the check that recognises its own
// output: a keyed MAC over the policy and the instance's pseudonym and UIDs. Without the project
// key it cannot be made; with another key or another policy it does not match.
import type { Dict } from 'dcmjs';
import { hex, keyedDigest } from './keyed.js';
import { BASIC_PROFILE, OPTION_INFO, type Option } from './options.js';
import { TABLE_EDITION } from './table-e1-1.js';

export const EDITION = `DICOM PS3.15 ${TABLE_EDITION}`;
const CHECK_PREFIX = 'portal-deid check ';

/** DeidentificationMethod (LO, 64 characters per value): the profile, each option, the check. */
export function methodValues(options: readonly Option[]): string[] {
  return [`${EDITION} ${BASIC_PROFILE.meaning}`, ...options.map((o) => OPTION_INFO[o].meaning)];
}

export function checkValue(key: Uint8Array, options: readonly Option[], dict: Dict): string {
  const fields = [methodValues(options).join('|'), text(dict, '00100020'), text(dict, '00080018'), text(dict, '0020000D')];
  return CHECK_PREFIX + hex(keyedDigest(key, 'check', fields.join('\u0001'))).slice(0, 32);
}

export function methodCodes(options: readonly Option[]): Dict[] {
  const code = (value: string, meaning: string): Dict => ({
    '00080100': { vr: 'SH', Value: [value] },
    '00080102': { vr: 'SH', Value: ['DCM'] },
    '00080104': { vr: 'LO', Value: [meaning] },
  });
  return [code(BASIC_PROFILE.code, BASIC_PROFILE.meaning), ...options.map((o) => code(OPTION_INFO[o].code, OPTION_INFO[o].meaning))];
}

/** True when the dataset carries our marks for exactly this policy and key. */
export function carriesOurMarks(dict: Dict, options: readonly Option[], key: Uint8Array): boolean {
  if (text(dict, '00120062') !== 'YES') return false;
  const method = (dict['00120063']?.Value ?? []).map((v) => String(v).trim());
  const expected = [...methodValues(options), checkValue(key, options, dict)];
  return method.length === expected.length && method.every((v, i) => v === expected[i]);
}

export function text(dict: Dict, tag: string): string {
  const v = dict[tag]?.Value?.[0];
  if (v && typeof v === 'object' && 'Alphabetic' in v) {
    const alphabetic = v.Alphabetic;
    return typeof alphabetic === 'string' ? alphabetic.trim() : '';
  }
  return typeof v === 'string' ? v.trim() : '';
}
