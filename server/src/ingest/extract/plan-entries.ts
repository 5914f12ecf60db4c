// The safety rules for one archive's listing, decided before a byte is extracted: which entries
// are written out, and why each other one is skipped. Pure, so every rule is tested on its own.
import { setImmediate } from 'node:timers/promises';
import { normalizeEntryPath } from '../entry-path.js';
import type { IngestLimits } from '../limits.js';
import { SKIP, type SkipReason } from '../skip-reasons.js';
import type { ListedEntry } from './sevenzip/sevenzip-listing.js';

export type PlanItem =
  | { type: 'planned'; path: string; entry: ListedEntry }
  | { type: 'skipped'; path: string; reason: SkipReason; size: number | null };

export interface EntryPlan {
  /** Every listed entry, in archive order. */
  items: PlanItem[];
  /** The planned entries by normalised path, in archive order. */
  include: Map<string, ListedEntry>;
}

type PlanLimits = Pick<IngestLimits, 'maxEntryBytes' | 'maxCompressionRatio' | 'ratioFloorBytes'>;

/** 'a/b/c.dcm' → ['a', 'a/b']. */
function folders(entryPath: string): string[] {
  const parts = entryPath.split('/');
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/**
 * Links and special files are never written; names must normalise; no two entries may land on the
 * same path (nor a file on a folder another needs); sizes the listing states must fit the entry
 * limit, the compression ratio and `remainingBytes` together. Entries are judged one at a time, so
 * a long listing can be planned in slices between which the event loop runs.
 */
export class EntryPlanner {
  private readonly seen = new Set<string>();
  // Folders the planned files lie in: a file may not take a folder's name, nor sit under a file.
  private readonly folderNames = new Set<string>();
  private plannedBytes = 0;

  constructor(
    private readonly limits: PlanLimits,
    private readonly remainingBytes: number,
  ) {}

  /** Judges the next entry; only the names seen so far are remembered, not the items. */
  add(entry: ListedEntry): PlanItem {
    const { limits, seen, folderNames } = this;
    const normalized = normalizeEntryPath(entry.rawPath);
    const shownPath = normalized.ok ? normalized.path : entry.rawPath;
    const skip = (reason: SkipReason): PlanItem => ({ type: 'skipped', path: shownPath, reason, size: entry.size });
    if (entry.type === 'symlink') return skip(SKIP.symlink);
    if (entry.type === 'hardlink') return skip(SKIP.hardLink);
    if (entry.type === 'special') return skip(SKIP.special);
    if (!normalized.ok) return skip(normalized.reason);
    if (seen.has(normalized.path) || folderNames.has(normalized.path) || folders(normalized.path).some((f) => seen.has(f))) return skip(SKIP.duplicate);
    if (entry.size !== null && entry.size > limits.maxEntryBytes) return skip(SKIP.entryTooLarge);
    if (
      entry.size !== null &&
      entry.packedSize !== null &&
      entry.size > limits.ratioFloorBytes &&
      entry.size > limits.maxCompressionRatio * Math.max(entry.packedSize, 1)
    )
      return skip(SKIP.ratio);
    if (entry.size !== null && this.plannedBytes + entry.size > this.remainingBytes) return skip(SKIP.totalSize);
    seen.add(normalized.path);
    for (const folder of folders(normalized.path)) folderNames.add(folder);
    this.plannedBytes += entry.size ?? 0;
    return { type: 'planned', path: normalized.path, entry };
  }
}

function addTo(plan: EntryPlan, item: PlanItem): void {
  plan.items.push(item);
  if (item.type === 'planned') plan.include.set(item.path, item.entry);
}

/** The whole listing at once (for short listings and the rules' own tests). */
export function planEntries(entries: readonly ListedEntry[], limits: PlanLimits, remainingBytes: number): EntryPlan {
  const planner = new EntryPlanner(limits, remainingBytes);
  const plan: EntryPlan = { items: [], include: new Map() };
  for (const entry of entries) addTo(plan, planner.add(entry));
  return plan;
}

/** How many entries are judged between two turns of the event loop. */
const PLAN_SLICE = 1000;

/**
 * The plan of a listing made entry by entry, with a turn of the event loop between slices (100,000
 * entries at once held it ~2 s under load; they take ~0.5 s of CPU). Only the names seen are kept,
 * so a listing can be planned again, window by window, instead of being held planned whole.
 */
export async function* planListed(entries: Iterable<ListedEntry>, limits: PlanLimits, remainingBytes: number): AsyncGenerator<PlanItem> {
  const planner = new EntryPlanner(limits, remainingBytes);
  let at = 0;
  for (const entry of entries) {
    if (at > 0 && at % PLAN_SLICE === 0) await setImmediate();
    yield planner.add(entry);
    at += 1;
  }
}
