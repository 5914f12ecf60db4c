// One window of a zip (or of a tar the native path reads) extracted by runs of its own: on two
// threads when it is large, rerun without an entry that proved larger than its header.
import { SKIP } from '../skip-reasons.js';
import { splitRuns } from './layer-budget.js';
import type { LayerRun, Window } from './layer-run.js';
import { FORMATS, type Decide } from './layer-types.js';
import type { SevenZipWorker } from './sevenzip/sevenzip-client.js';
import type { ListedEntry } from './sevenzip/sevenzip-listing.js';
import type { ExtractResult, NativeTarMember, NativeZipMember, StopReason, WriteGuard } from './sevenzip/sevenzip-protocol.js';
import { isBudgetStop, MAX_RERUNS, settledOutcome } from './run-tally.js';
import type { TarListedEntry } from './tar/tar-headers.js';
import type { ZipListedEntry } from './zip/zip-directory.js';

/** Below this many entries a second thread costs more than it saves. */
const PARALLEL_MIN_ENTRIES = 16;
/**
 * Nor below this many bytes: one thread inflates them in a fraction of a second, and a window of
 * tiny entries is bound by the job recording them, not by extraction. A second thread costs its
 * isolate's memory (~20–40 MB), which 100,000 tiny entries would pay for nothing.
 */
const PARALLEL_MIN_BYTES = 64 * 1024 ** 2;

function nativeZipMember(rel: string, entry: ListedEntry): NativeZipMember {
  if (!('zip' in entry) || entry.size === null) throw new Error(`${rel} was not listed from a zip's central directory`);
  return { rel, size: entry.size, ...(entry as ZipListedEntry).zip };
}

function nativeTarMember(rel: string, entry: ListedEntry): NativeTarMember {
  if (!('tar' in entry) || entry.size === null) throw new Error(`${rel} was not listed from a tar's headers`);
  return { rel, size: entry.size, ...(entry as TarListedEntry).tar };
}

/** The sizes the listing states for these entries: writing more means a header lied. */
function statedSizes(window: Window, paths: readonly string[]): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const p of paths) {
    const size = window.include.get(p)!.size;
    if (size !== null) sizes[p] = size;
  }
  return sizes;
}

/** One run over some entries of the window, by the back end the plan chose. */
function extractRun(run: LayerRun, window: Window, worker: SevenZipWorker, paths: readonly string[], guard: WriteGuard): Promise<ExtractResult> {
  const { input, plan, credit } = run;
  const onSettled = (file: Parameters<typeof settledOutcome>[0]): void => window.outcomes.decide(file.rel, settledOutcome(file));
  const common = { archive: input.archive, outDir: input.outDir, guard, maxDicomHeaderBytes: input.limits.maxDicomHeaderBytes, inPlace: input.inPlace };
  if (plan.native === 'zip') return worker.extractNativeZip({ ...common, members: paths.map((p) => nativeZipMember(p, window.include.get(p)!)) }, onSettled);
  if (plan.native === 'tar') return worker.extractNativeTar({ ...common, members: paths.map((p) => nativeTarMember(p, window.include.get(p)!)) }, onSettled);
  return worker.extract(
    {
      archive: input.archive,
      format: FORMATS[input.kind],
      outDir: input.outDir,
      include: paths.map((p) => window.include.get(p)!.rawPath),
      guard,
      settledOnly: true,
      ...(credit === null ? {} : { credit: credit.shared }),
      maxDicomHeaderBytes: input.limits.maxDicomHeaderBytes,
    },
    onSettled,
  );
}

/** A first run of many entries and bytes is shared by two threads; a rerun, being small, is not. */
function onTwoThreads(run: LayerRun, window: Window, pending: readonly string[], attempt: number): boolean {
  if (attempt > 0 || run.input.secondSevenZip === null || pending.length < PARALLEL_MIN_ENTRIES) return false;
  const bytes = pending.length === window.include.size ? window.bytes : pending.reduce((sum, p) => sum + (window.include.get(p)!.size ?? 0), 0);
  return bytes >= PARALLEL_MIN_BYTES;
}

/**
 * Extracts one window, rerunning without an entry that proved larger than its header (at most
 * MAX_RERUNS runs, then what is left is skipped for that reason); answers a budget stop, after
 * which the window's undecided entries are the producer's to skip.
 */
export async function extractWindow(run: LayerRun, window: Window): Promise<StopReason | null> {
  const { outcomes } = window;
  const decide: Decide = (p, value) => outcomes.decide(p, value);
  const sizeOf = (p: string): number | null => window.include.get(p)!.size;
  let pending: readonly string[] = [...window.include.keys()];
  for (let attempt = 0; pending.length > 0; attempt += 1) {
    const guard = run.tally.guard(statedSizes(window, pending));
    const { sevenZip, secondSevenZip } = run.input;
    const results = onTwoThreads(run, window, pending, attempt)
      ? await Promise.all(splitRuns(pending, sizeOf, guard).map(({ paths, budget }, i) => extractRun(run, window, i === 0 ? sevenZip : secondSevenZip!(), paths, budget)))
      : [await extractRun(run, window, sevenZip, pending, guard)];
    let budgetStop: StopReason | null = null;
    let stopped = false;
    for (const result of results) {
      const stop = await run.tally.account(result, decide);
      stopped ||= stop !== null;
      if (isBudgetStop(stop)) budgetStop = stop;
    }
    if (!stopped) return null;
    pending = pending.filter((p) => !outcomes.has(p));
    if (budgetStop !== null) return budgetStop;
    if (attempt + 1 >= MAX_RERUNS) {
      for (const p of pending) decide(p, { state: 'skipped', reason: SKIP.headerLied });
      return null;
    }
  }
  return null;
}
