// A layer's plan cut into windows, and the hand-over of windows from the extraction (producer) to
// the job (consumer). A layer's plan is made as its listing (a zip's directory, a tar's headers,
// 7-Zip's packed listing) is read again, window by window, so that what a layer holds is a window
// or two and the names seen, never one object per entry of the whole archive (100,000 of them took
// ~50 MB of the job's heap for a zip, ~27 MB for a 7z, and the heap grew to twice that).
import type { PlanItem } from './plan-entries.js';
import type { ListedEntry } from './sevenzip/sevenzip-listing.js';
import { SettledOutcomes } from './settled-outcomes.js';

/**
 * A zip's entries are extracted a window at a time, each once the job has taken the entries of the
 * window before: what waits between extraction and the job (files on disk, outcomes in memory,
 * members in the worker) is at most two windows, whatever the entry count. A 7z's one run is held
 * to as much by the run credit (run-credit.ts).
 */
export const WINDOW_ENTRIES = 2000;
export const WINDOW_BYTES = 512 * 1024 ** 2;

/** How much one window holds: WINDOW_ENTRIES and WINDOW_BYTES, smaller in tests of many windows. */
export interface WindowSize {
  entries: number;
  bytes: number;
}

/** Items in archive order (skipped ones included) and the planned entries among them by path. */
export interface PlanWindow<O> {
  items: PlanItem[];
  include: Map<string, ListedEntry>;
  /** What extraction decided about each planned entry, taken by the job in order. */
  outcomes: SettledOutcomes<O>;
  /** Bytes the planned entries state. */
  bytes: number;
}

/** Cuts the plan into windows of at most WINDOW_ENTRIES planned entries or WINDOW_BYTES (smaller ones for tests). */
export async function* planWindows<O>(
  items: AsyncIterable<PlanItem> | Iterable<PlanItem>,
  size: WindowSize = { entries: WINDOW_ENTRIES, bytes: WINDOW_BYTES },
): AsyncGenerator<PlanWindow<O>> {
  const fresh = (): PlanWindow<O> => {
    const include = new Map<string, ListedEntry>();
    return { items: [], include, outcomes: new SettledOutcomes<O>(include), bytes: 0 };
  };
  let current = fresh();
  for await (const item of items) {
    if (item.type === 'planned') {
      const entrySize = item.entry.size ?? 0;
      const full = current.include.size >= size.entries || current.bytes + entrySize > size.bytes;
      if (current.include.size > 0 && full) {
        yield current;
        current = fresh();
      }
      current.include.set(item.path, item.entry);
      current.bytes += entrySize;
    }
    current.items.push(item);
  }
  yield current;
}

/**
 * Windows handed from the extraction to the job in order. The extraction waits before a window
 * until the job has finished the one before the previous, so two windows at most are held.
 *
 * One 7-Zip run may also serve every window (a 7z or a RAR is read from start to end): its files are
 * decided through `decide`, which finds the window each belongs to, and keeps the decisions about
 * windows not yet planned until they are (the run credit keeps the run a bounded number of files
 * ahead of the job, so those are a window's worth at most, unless the run was let go on alone).
 */
export class WindowQueue<O> {
  readonly #ready: PlanWindow<O>[] = [];
  /** Handed over and not yet finished by the job: each must hear when the extraction ends. */
  readonly #open = new Set<PlanWindow<O>>();
  /** Decisions about entries of windows not yet pushed, by path. */
  readonly #early = new Map<string, O>();
  /** Planned entries in the windows pushed so far. */
  #pushedEntries = 0;
  /** Set once the run serving every window is over: what it left undecided gets `#verdict`, or none. */
  #runOver = false;
  #verdict: O | null = null;
  #finished = 0;
  #ended = false;
  #released = false;
  #waiters: (() => void)[] = [];

  push(window: PlanWindow<O>): void {
    if (this.#early.size > 0) {
      for (const key of window.include.keys()) {
        const value = this.#early.get(key);
        if (value === undefined) continue;
        this.#early.delete(key);
        window.outcomes.decide(key, value);
      }
    }
    this.#pushedEntries += window.include.size;
    if (this.#runOver) this.#settle(window);
    this.#ready.push(window);
    this.#open.add(window);
    this.#wake();
  }

  /** A decision of the run serving every window, about the entry at `key` wherever it lies. */
  decide(key: string, value: O): void {
    for (const window of this.#open) {
      if (!window.include.has(key)) continue;
      window.outcomes.decide(key, value);
      return;
    }
    if (!this.#early.has(key)) this.#early.set(key, value);
  }

  /**
   * Whether the planned entry at `key`, the `ordinal`-th planned entry of the layer, still waits for
   * a decision. The job takes entries in order and waits for each until it is decided, so the
   * entries of windows it has finished were all decided.
   */
  undecided(key: string, ordinal: number): boolean {
    if (ordinal >= this.#pushedEntries) return !this.#early.has(key);
    for (const window of this.#open) if (window.include.has(key)) return !window.outcomes.has(key);
    return false;
  }

  /**
   * The run serving every window is over: no more decisions come. What it left undecided gets
   * `verdict` (a budget stop's reason), or is left undecided (the job then says it was not extracted),
   * in the windows pushed so far and in those still to come.
   */
  runOver(verdict: O | null): void {
    this.#runOver = true;
    this.#verdict = verdict;
    for (const window of this.#open) this.#settle(window);
    this.#wake();
  }

  #settle(window: PlanWindow<O>): void {
    const verdict = this.#verdict;
    if (verdict !== null) for (const key of window.include.keys()) window.outcomes.decide(key, verdict);
    window.outcomes.end();
  }

  /** The extraction is done (or failed): nothing more comes, and no outcome is awaited any longer. */
  end(): void {
    this.#ended = true;
    for (const window of this.#open) window.outcomes.end();
    this.#wake();
  }

  /** The job stopped early: an extraction waiting for it must not wait any longer. */
  release(): void {
    this.#released = true;
    for (const window of this.#open) window.outcomes.release();
    this.#wake();
  }

  get released(): boolean {
    return this.#released;
  }

  /** The job's next window, or undefined once the extraction has ended and all were taken. */
  async next(): Promise<PlanWindow<O> | undefined> {
    while (this.#ready.length === 0 && !this.#ended) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    return this.#ready.shift();
  }

  /** The job has taken every item of this window. */
  finish(window: PlanWindow<O>): void {
    this.#open.delete(window);
    this.#finished += 1;
    this.#wake();
  }

  /** Resolves once the job has finished `count` windows, or has stopped taking any. */
  async finished(count: number): Promise<void> {
    while (this.#finished < count && !this.#released) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  #wake(): void {
    for (const resolve of this.#waiters.splice(0)) resolve();
  }
}
