// The path of a file inside a delivery's folder, sent alone (relativePath) or in a bundle (its tar
// member's name): the same rules and the same answers either way.
import { unprocessable } from '../errors/app-error.js';
import { normalizeEntryPath } from '../ingest/index.js';
import { removeDisguisingCharactersFromPath } from '../files/index.js';

const MAX_PATH_CHARS = 1024;

export function pathTaken(relativePath: string) {
  return unprocessable(`The delivery already has a file at "${relativePath}" (or a folder or file in its way); each file of a folder needs its own path`);
}

/** The path of a file inside its folder, by the rules for archive entry names; 422 naming the problem. */
export function checkRelativePath(raw: string | null | undefined): string {
  if (raw === undefined || raw === null || raw.trim() === '') {
    throw unprocessable('Send the path of the file inside the folder (relativePath) with every file of a delivery, or bundle=tar with a bundle of its files');
  }
  if ([...raw].length > MAX_PATH_CHARS) throw unprocessable(`The path of a file inside the folder must be at most ${MAX_PATH_CHARS} characters`);
  // Judged as sent (a control character is refused, not dropped), then again once cleaned: what is
  // left of it must still be a path inside the folder.
  const sent = normalizeEntryPath(raw);
  const normalized = sent.ok ? normalizeEntryPath(removeDisguisingCharactersFromPath(sent.path)) : sent;
  if (!normalized.ok) {
    throw unprocessable(`The path "${printable(raw)}" cannot be accepted (${normalized.reason}); send paths relative to the folder, like "series1/IM0001"`);
  }
  return normalized.path;
}

/** A path shown in a message: control characters would break the line a person reads. */
export function printable(raw: string): string {
  return [...raw].map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f ? '?' : c)).join('').slice(0, 200);
}
