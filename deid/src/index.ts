export { deidentify, isDeidentifiedBy, type DeidReport, type DeidResult } from './deidentify.ts';
export { DeidentificationError, type RejectionCode } from './errors.ts';
export { pseudonymOf, replacementUid, PSEUDONYM_PATTERN } from './keyed.ts';
export { EDITION } from './method.ts';
export { OPTIONS, OPTION_INFO, normaliseOptions, type Option, type Policy } from './options.ts';
export { TABLE_EDITION, TABLE_SOURCE, TABLE_EXTRACTION } from './table-e1-1.ts';
export type { Counts } from './walk.ts';
