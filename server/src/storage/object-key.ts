// Keys are made here, by the server, and never from a user-supplied name: a file's original name
// lives in the database only. The strict grammar is a second line of defence should a key ever be
// built from anything else.
import { randomUUID } from 'node:crypto';
import { InvalidKeyError } from './storage-errors.js';

// Lower case only, so two keys never name the same file on a case-insensitive filesystem; a
// segment starts with a letter or digit, so '.', '..' and hidden names like '.tmp' are impossible.
const SEGMENT = /^[a-z0-9][a-z0-9_.-]{0,127}$/;
const MAX_KEY_LENGTH = 512;
const MAX_DEPTH = 8;

export function isValidKey(key: string): boolean {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || key.includes('..')) return false;
  const segments = key.split('/');
  return segments.length <= MAX_DEPTH && segments.every((s) => SEGMENT.test(s));
}

export function assertValidKey(key: string): void {
  if (!isValidKey(key)) throw new InvalidKeyError(key);
}

/** A listing prefix: '' (everything) or a valid key followed by '/'. */
export function assertValidPrefix(prefix: string): void {
  if (prefix !== '' && !(prefix.endsWith('/') && isValidKey(prefix.slice(0, -1)))) throw new InvalidKeyError(prefix);
}

/** A fresh key for an upload's bytes exactly as received. */
export function newUploadKey(): string {
  return `uploads/${randomUUID()}`;
}

/** A fresh key for one entry extracted from an upload; grouping by file id lets an upload's entries be listed and removed together. */
export function newEntryKey(fileId: number | string): string {
  const key = `entries/${String(fileId)}/${randomUUID()}`;
  assertValidKey(key);
  return key;
}
