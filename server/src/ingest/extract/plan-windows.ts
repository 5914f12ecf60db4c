// A layer's plan cut into windows, and the hand-over of windows from the extraction (producer) to
// the job (consumer). A plain zip's (or tar's) plan is made as its directory (headers) is read again, window by window,
// so that what a layer holds is a window or two and the names seen, never one object per entry of
// the whole archive (100,000 of them took ~50 MB of the job's heap, and the heap grew to twice that).
import type { PlanItem } from './plan-entries.js';
import type { ListedEntry } from './sevenzip/sevenzip-listing.js';
import { SettledOutcomes } from './settled-outcomes.js';

/**
 * A zip's entries are extracted a window at a time, each once the job has taken the entries of the
 * window before: what waits between extraction and the job (files on disk, outcomes in memory,
 * members in the worker) is at most two windows, whatever the entry count.
 */
export const WINDOW_ENTRIES = 2000;
export const WINDOW_BYTES = 512 * 1024 ** 2;

/** Items in archive order (skipped ones included) and the planned entries among them by path. */
export interface PlanWindow<O> {
  items: PlanItem[];
  include: Map<string, ListedEntry>;
  /** What extraction decided about each planned entry, taken by the job in order. */
  outcomes: SettledOutcomes<O>;
  /** Bytes the planned entries state. */
  bytes: number;
}

/**
 * Cuts the plan into windows of at most WINDOW_ENTRIES planned entries or WINDOW_BYTES when
 * `windowed` (zip, and tar on the native path); what 7-Zip reads from start to end (solid 7z, a
 * tar it lists) is one window, one pass.
 */
export async function* planWindows<O>(items: AsyncIterable<PlanItem> | Iterable<PlanItem>, windowed: boolean): AsyncGenerator<PlanWindow<O>> {
  const fresh = (): PlanWindow<O> => {
    const include = new Map<string, ListedEntry>();
    return { items: [], include, outcomes: new SettledOutcomes<O>(include), bytes: 0 };
  };
  let current = fresh();
  for await (const item of items) {
    if (item.type === 'planned') {
      const size = item.entry.size ?? 0;
      const full = current.include.size >= WINDOW_ENTRIES || current.bytes + size > WINDOW_BYTES;
      if (windowed && current.include.size > 0 && full) {
        yield current;
        current = fresh();
      }
      current.include.set(item.path, item.entry);
      current.bytes += size;
    }
    current.items.push(item);
  }
  yield current;
}

/**
 * Windows handed from the extraction to the job in order. The extraction waits before a window
 * until the job has finished the one before the previous, so two windows at most are held.
 */
export class WindowQueue<O> {
  readonly #ready: PlanWindow<O>[] = [];
  /** Handed over and not yet finished by the job: each must hear when the extraction ends. */
  readonly #open = new Set<PlanWindow<O>>();
  #finished = 0;
  #ended = false;
  #released = false;
  #waiters: (() => void)[] = [];

  push(window: PlanWindow<O>): void {
    this.#ready.push(window);
    this.#open.add(window);
    this.#wake();
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
