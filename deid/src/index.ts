// dcmjs ships no types; a program that compiles this package's sources (server, web) gets ours.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./dcmjs.d.ts" />
export { deidentify, deidentifyParts, isDeidentifiedBy, recogniseOwnOutput, type DeidParts, type DeidReport, type DeidResult } from './deidentify.js';
export { NeedsWholeFile } from './part10.js';
export { DeidentificationError, type RejectionCode } from './errors.js';
export { pseudonymOf, replacementUid, PSEUDONYM_PATTERN } from './keyed.js';
export { EDITION } from './method.js';
export { OPTIONS, OPTION_INFO, normaliseOptions, type Option, type Policy } from './options.js';
export { TABLE_EDITION, TABLE_SOURCE, TABLE_EXTRACTION } from './table-e1-1.js';
export type { Counts } from './walk.js';
