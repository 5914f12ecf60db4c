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
  readonly plan: EntryPlan = { items: [], include: new Map() };
  private plannedBytes = 0;

  constructor(
    private readonly limits: PlanLimits,
    private readonly remainingBytes: number,
  ) {}

  add(entry: ListedEntry): void {
    const { limits, seen, folderNames } = this;
    const { items, include } = this.plan;
    const normalized = normalizeEntryPath(entry.rawPath);
    const shownPath = normalized.ok ? normalized.path : entry.rawPath;
    const skip = (reason: SkipReason): void => void items.push({ type: 'skipped', path: shownPath, reason, size: entry.size });
    if (entry.type === 'symlink') skip(SKIP.symlink);
    else if (entry.type === 'hardlink') skip(SKIP.hardLink);
    else if (entry.type === 'special') skip(SKIP.special);
    else if (!normalized.ok) skip(normalized.reason);
    else if (seen.has(normalized.path) || folderNames.has(normalized.path) || folders(normalized.path).some((f) => seen.has(f))) skip(SKIP.duplicate);
    else if (entry.size !== null && entry.size > limits.maxEntryBytes) skip(SKIP.entryTooLarge);
    else if (
      entry.size !== null &&
      entry.packedSize !== null &&
      entry.size > limits.ratioFloorBytes &&
      entry.size > limits.maxCompressionRatio * Math.max(entry.packedSize, 1)
    )
      skip(SKIP.ratio);
    else if (entry.size !== null && this.plannedBytes + entry.size > this.remainingBytes) skip(SKIP.totalSize);
    else {
      seen.add(normalized.path);
      for (const folder of folders(normalized.path)) folderNames.add(folder);
      include.set(normalized.path, entry);
      this.plannedBytes += entry.size ?? 0;
      items.push({ type: 'planned', path: normalized.path, entry });
    }
  }
}

/** The whole listing at once (for short listings and the rules' own tests). */
export function planEntries(entries: readonly ListedEntry[], limits: PlanLimits, remainingBytes: number): EntryPlan {
  const planner = new EntryPlanner(limits, remainingBytes);
  for (const entry of entries) planner.add(entry);
  return planner.plan;
}

/** How many entries are judged between two turns of the event loop. */
const PLAN_SLICE = 1000;

/** The same plan, yielding to the event loop between slices: 100,000 entries take ~0.5 s of CPU. */
export async function planEntriesYielding(entries: readonly ListedEntry[], limits: PlanLimits, remainingBytes: number): Promise<EntryPlan> {
  const planner = new EntryPlanner(limits, remainingBytes);
  for (let at = 0; at < entries.length; at += 1) {
    if (at > 0 && at % PLAN_SLICE === 0) await setImmediate();
    planner.add(entries[at]!);
  }
  return planner.plan;
}
