// What 7-Zip's complaints mean, in words a user can act on, and which entries they name.
import { SKIP } from '../skip-reasons.js';
import { erroredName } from './sevenzip/sevenzip-errors.js';

/** 7-Zip's own text names internal paths and codes. */
const ARCHIVE_PROBLEMS: readonly [RegExp, string][] = [
  [/unexpected end of (archive|data)|truncated/i, 'it ends early: the file was cut short'],
  [/can ?not open (the )?file as|is not archive|unsupported/i, 'its format could not be recognised'],
  [/headers? error/i, 'its headers are damaged'],
  [/data error|crc failed/i, 'some of its data is damaged'],
];

export function archiveError(errors: readonly string[], crash: string | null): string {
  const said = [...errors, crash ?? ''].join('\n');
  // A crash is already described in words by the worker.
  const meaning = ARCHIVE_PROBLEMS.find(([pattern]) => pattern.test(said))?.[1] ?? crash ?? undefined;
  return meaning === undefined ? SKIP.corruptArchive : `${SKIP.corruptArchive} (${meaning})`;
}

/** Names 7-Zip complained about ("ERROR: Data Error : a/b.dcm"), normalised like our own paths. */
export function failedNames(errors: readonly string[]): { names: Set<string>; wrongPassword: boolean } {
  const names = new Set<string>();
  for (const line of errors) {
    const name = erroredName(line);
    if (name !== null) names.add(name);
  }
  return { names, wrongPassword: errors.some((line) => /wrong password/i.test(line)) };
}
