// 7-Zip names the file in its per-file errors: "ERROR: Data Error : a/b.dcm".
import { normalizeEntryPath } from '../../entry-path.js';

/** The normalised path an error line names, or null for archive-level lines. */
export function erroredName(line: string): string | null {
  const match = /^ERROR: [^:]+ : (.+)$/.exec(line);
  if (match === null) return null;
  const normalized = normalizeEntryPath(match[1]!.replace(/^\/out\//, ''));
  return normalized.ok ? normalized.path : null;
}
