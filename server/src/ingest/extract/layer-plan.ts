// A layer's plan, before anything is written: the listing (a plain zip's directory or a plain tar's
// headers read natively, else 7-Zip's listing), judged entry by entry by plan-entries.ts.
import type { ArchiveKind } from '../detect/detect-kind.js';
import { ENCRYPTED_MESSAGE } from '../skip-reasons.js';
import { archiveError } from './archive-problems.js';
import { FORMATS, type LayerFailure, type LayerInput } from './layer-types.js';
import { EntryPlanner, planListed, type PlanItem } from './plan-entries.js';
import { unpackEntries, type ListedEntry } from './sevenzip/sevenzip-listing.js';
import { sevenZipHeadersEncrypted } from './sevenzip/sevenz-header.js';
import { scanTarHeaders, tarHeaderEntries } from './tar/tar-headers.js';
import { scanZipDirectory, zipDirectoryEntries } from './zip/zip-directory.js';

/**
 * The layer's plan, as it is made: a plain zip's directory or a plain tar's headers are counted
 * first (the native paths), other archives are listed by 7-Zip (the listing kept packed); then the
 * directory, headers or listing are read again entry by entry while the windows are extracted.
 */
export interface LayerPlan {
  native: 'zip' | 'tar' | null;
  /** Entries listed (the rest are only counted in `overflow`). */
  listed: number;
  overflow: number;
  /** The listing ended early (7-Zip's complaints, or a tar cut before its end). */
  truncated: boolean;
  /** Listed by 7-Zip for one run, and every entry listed was planned: the run needs no list of names. */
  allPlanned: boolean;
  items: () => AsyncIterable<PlanItem> | Iterable<PlanItem>;
}

type NativeScan = { listed: number; overflow: number; truncated?: boolean };

/** What the native paths read, or null when the archive needs 7-Zip. */
async function nativeScan(input: LayerInput, cap: number): Promise<{ native: 'zip' | 'tar'; scan: NativeScan; entries: () => AsyncIterable<ListedEntry> } | null> {
  if (input.kind === 'zip') {
    const scan = await scanZipDirectory(input.archive, cap);
    return scan === null ? null : { native: 'zip', scan, entries: () => zipDirectoryEntries(input.archive, cap) };
  }
  if (input.kind === 'tar') {
    const scan = await scanTarHeaders(input.archive, cap);
    return scan === null ? null : { native: 'tar', scan, entries: () => tarHeaderEntries(input.archive, cap) };
  }
  return null;
}

export async function planLayer(input: LayerInput): Promise<LayerPlan | LayerFailure> {
  const cap = input.budget.remainingEntries;
  const found = await nativeScan(input, cap);
  if (found !== null) {
    const { native, scan, entries } = found;
    const items = async function* (): AsyncGenerator<PlanItem> {
      // Planned against the budget as it was before the first window wrote anything, as a whole plan is.
      const planner = new EntryPlanner(input.limits, input.budget.remainingBytes);
      for await (const entry of entries()) yield planner.add(entry);
    };
    return { native, listed: scan.listed, overflow: scan.overflow, truncated: scan.truncated ?? false, allPlanned: false, items };
  }
  const listed = await input.sevenZip.list({ archive: input.archive, format: FORMATS[input.kind], cap });
  const { listing } = listed;
  if (listing.encrypted) return { ok: false, error: ENCRYPTED_MESSAGE, encrypted: true };
  const unreadable = listed.crash !== null || (listed.exitCode !== 0 && listing.entries.count === 0);
  if (unreadable && input.kind === '7z' && (await sevenZipHeadersEncrypted(input.archive)))
    return { ok: false, error: ENCRYPTED_MESSAGE, encrypted: true };
  if (unreadable) return { ok: false, error: archiveError(listing.errors, listed.crash), encrypted: false };
  // Planned against the budget as it was before anything was written, each time it is planned again.
  const plannedAgainst = input.budget.remainingBytes;
  const items = (): AsyncGenerator<PlanItem> => planListed(unpackEntries(listing.entries), input.limits, plannedAgainst);
  // Planned once more to know whether every entry is (the names seen are all it keeps): a 7z's one
  // run then needs no list of names. A zip's windows each have their own run and list.
  let allPlanned = false;
  if (!windowedKind(input.kind, null)) {
    let planned = 0;
    for await (const item of items()) if (item.type === 'planned') planned += 1;
    allPlanned = planned === listing.entries.count;
  }
  return { native: null, listed: listing.entries.count, overflow: listing.overflow, truncated: listing.errors.length > 0, allPlanned, items };
}

/**
 * A zip's entries, and a tar's the native path read, can be read in any order and in parts: each
 * window is extracted by its own run, on two threads when it is large. 7-Zip reads a tar or a 7z
 * (or a RAR) from start to end: one run serves every window.
 */
export function windowedKind(kind: ArchiveKind, native: 'zip' | 'tar' | null): boolean {
  return kind === 'zip' || native === 'tar';
}
