import type { OptionColumn } from './table-row.js';

/** The options a project may add to the Basic profile; these ids are what the policy API carries. */
export const OPTIONS = [
  'retainLongitudinalModifiedDates',
  'retainPatientCharacteristics',
  'retainDeviceIdentity',
  'retainSafePrivate',
  'cleanDescriptors',
  'retainUIDs',
] as const;
export type Option = (typeof OPTIONS)[number];

export interface Policy {
  profile: 'basic';
  options: readonly Option[];
}

interface OptionInfo {
  column: OptionColumn;
  /** PS3.16 CID 7050 "De-identification Method" (scheme DCM). */
  code: string;
  meaning: string;
}

export const OPTION_INFO: Record<Option, OptionInfo> = {
  cleanDescriptors: { column: 'cleanDescOpt', code: '113105', meaning: 'Clean Descriptors Option' },
  retainLongitudinalModifiedDates: { column: 'rtnLongModifDatesOpt', code: '113107', meaning: 'Retain Longitudinal Temporal Information Modified Dates Option' },
  retainPatientCharacteristics: { column: 'rtnPatCharsOpt', code: '113108', meaning: 'Retain Patient Characteristics Option' },
  retainDeviceIdentity: { column: 'rtnDevIdOpt', code: '113109', meaning: 'Retain Device Identity Option' },
  retainUIDs: { column: 'rtnUIDsOpt', code: '113110', meaning: 'Retain UIDs Option' },
  retainSafePrivate: { column: 'rtnSafePrivOpt', code: '113111', meaning: 'Retain Safe Private Option' },
};

export const BASIC_PROFILE = { code: '113100', meaning: 'Basic Application Confidentiality Profile' } as const;

/** Options in the order of OPTIONS without duplicates, so that equal policies give equal bytes. */
export function normaliseOptions(options: readonly string[]): Option[] {
  for (const option of options) {
    if (!(OPTIONS as readonly string[]).includes(option)) throw new TypeError(`unknown de-identification option: ${option}`);
  }
  return OPTIONS.filter((o) => options.includes(o));
}
