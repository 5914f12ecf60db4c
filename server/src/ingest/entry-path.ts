// Archive entry names are attacker-controlled: normalise the safe ones, name the unsafe.
import { SKIP, type SkipReason } from './skip-reasons.js';

export type EntryPathResult = { ok: true; path: string } | { ok: false; reason: SkipReason };

/**
 * 'a/./b//c.dcm' → 'a/b/c.dcm'. Refuses instead of repairing: a name that tries to climb out or
 * reach the root says something about the archive its owner should see.
 */
export function normalizeEntryPath(raw: string): EntryPathResult {
  // Newlines would also break the include list handed to 7-Zip.
  if ([...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return { ok: false, reason: SKIP.controlChars };
  if (raw.includes('\\')) return { ok: false, reason: SKIP.backslash };
  if (/^[A-Za-z]:/.test(raw)) return { ok: false, reason: SKIP.driveLetter };
  if (raw.startsWith('/')) return { ok: false, reason: SKIP.absolute };
  const segments = raw.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) return { ok: false, reason: SKIP.traversal };
  if (segments.length === 0) return { ok: false, reason: SKIP.emptyName };
  return { ok: true, path: segments.join('/') };
}

export function joinEntryPath(parent: string, child: string): string {
  return parent === '' ? child : `${parent}/${child}`;
}
