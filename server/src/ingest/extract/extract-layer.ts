// One extraction layer: list the archive (natively for a plain zip or tar, else with 7-Zip), plan its
// entries (plan-entries.ts), extract the planned ones under a write guard (layer-budget.ts), and
// check on disk what was actually produced, handing entries on in archive order.
import { lstat, mkdir, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ArchiveKind } from '../detect/detect-kind.js';
import { SINGLE_STREAM_KINDS } from '../detect/detect-kind.js';
import type { EntryAnalysis } from '../entry-analysis.js';
import type { IngestLimits } from '../limits.js';
import { unpackEntries, type ListedEntry } from './sevenzip/sevenzip-listing.js';
import type { ExtractResult, SettledFile, SevenZipFormat, StopReason, NativeTarMember, NativeZipMember, WriteGuard } from './sevenzip/sevenzip-protocol.js';
import { scanZipDirectory, zipDirectoryEntries, type ZipListedEntry } from './zip/zip-directory.js';
import { scanTarHeaders, tarHeaderEntries, type TarListedEntry } from './tar/tar-headers.js';
import type { SevenZipWorker } from './sevenzip/sevenzip-client.js';
import { sevenZipHeadersEncrypted } from './sevenzip/sevenz-header.js';
import { ENCRYPTED_MESSAGE, SKIP, type SkipReason } from '../skip-reasons.js';
import { splitRuns, writeGuard, type LayerBudget } from './layer-budget.js';
import { EntryPlanner, planListed, type PlanItem } from './plan-entries.js';
import { planWindows, WindowQueue, type PlanWindow } from './plan-windows.js';
import { erroredName } from './sevenzip/sevenzip-errors.js';
import { RunCredit } from './run-credit.js';

/** A layer's findings, in archive order. `path` is relative to the archive ('' for a single stream). */
export type LayerItem =
  | { type: 'kept'; path: string; file: string; size: number; sha256: string | null; analysis: EntryAnalysis | null }
  /** Checked where it lies in the archive (the stored upload), never written: bytes [at, at + size). */
  | { type: 'in-place'; path: string; at: number; sha256: string; analysis: EntryAnalysis }
  | { type: 'skipped'; path: string; reason: SkipReason; size: number | null };

/**
 * A layer being extracted. `items` yields entries in archive order as soon as each is final, while
 * 7-Zip goes on writing later ones; `done` settles when 7-Zip has finished (budget updated then).
 */
export interface Layer {
  items: AsyncGenerator<LayerItem>;
  done: Promise<void>;
  overflow: number;
  /** Known once `done` has settled: 7-Zip reported damage, and not everything was read. */
  truncated(): boolean;
  /**
   * Holds the layer's extraction between two windows (resolving once none is running; a 7-Zip run
   * serving every window is let go on to its end), so a nested archive found meanwhile is
   * extracted alone and the byte budget is never granted twice.
   */
  pause(): Promise<void>;
  resume(): void;
}

/** Counted holds: extraction goes on when every nested layer that paused it has resumed it. */
class Holds {
  #count = 0;
  #waiters: (() => void)[] = [];

  hold(): void {
    this.#count += 1;
  }

  release(): void {
    this.#count -= 1;
    if (this.#count === 0) for (const resolve of this.#waiters.splice(0)) resolve();
  }

  async free(): Promise<void> {
    while (this.#count > 0) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }
}

export type LayerResult = { ok: true; layer: Layer } | { ok: false; error: string; encrypted: boolean };

function finishedLayer(items: LayerItem[], overflow: number, truncated: boolean): Layer {
  return {
    items: (async function* () {
      for (const item of items) yield await Promise.resolve(item);
    })(),
    done: Promise.resolve(),
    overflow,
    truncated: () => truncated,
    pause: () => Promise.resolve(),
    resume: () => undefined,
  };
}

const FORMATS: Record<ArchiveKind, SevenZipFormat> = {
  zip: 'zip',
  rar4: 'rar',
  rar5: 'rar5',
  '7z': '7z',
  tar: 'tar',
  gzip: 'gzip',
  bzip2: 'bzip2',
  xz: 'xz',
  lzma: 'lzma',
};

/** Reruns after an entry proved larger than its header: each costs a new pass over the archive. */
const MAX_RERUNS = 3;

const STOP_REASONS: Record<StopReason, SkipReason> = {
  'entry-too-large': SKIP.entryTooLarge,
  'header-lied': SKIP.headerLied,
  total: SKIP.totalSize,
  ratio: SKIP.ratio,
};

export interface LayerInput {
  archive: string;
  kind: ArchiveKind;
  outDir: string;
  limits: IngestLimits;
  budget: LayerBudget;
  /** Counts the entries a listing names (work-budget.ts); throws when the upload has seen too many. */
  seeEntries: (count: number) => void;
  sevenZip: SevenZipWorker;
  /**
   * Gives a second 7-Zip thread for zip layers: inflating in WebAssembly is the bottleneck, and a
   * zip's entries can be read in any order, so each thread takes half. Null: one thread only.
   */
  secondSevenZip: (() => SevenZipWorker) | null;
  /** The archive is the stored upload: a plain zip's stored entries may stay where they are. */
  inPlace: boolean;
}

/** Below this many entries a second thread costs more than it saves. */
const PARALLEL_MIN_ENTRIES = 16;
/**
 * Nor below this many bytes: one thread inflates them in a fraction of a second, and a window of
 * tiny entries is bound by the job recording them, not by extraction. A second thread costs its
 * isolate's memory (~20–40 MB), which 100,000 tiny entries would pay for nothing.
 */
const PARALLEL_MIN_BYTES = 64 * 1024 ** 2;

/** `layerWritten`: what earlier runs of this layer wrote, which the ratio allowance already spent. */
function guardFor(input: LayerInput, archiveBytes: number, expectedSizes: Record<string, number>, single: boolean, layerWritten = 0): WriteGuard {
  return writeGuard(input.limits, input.budget.remainingBytes, archiveBytes, expectedSizes, single, layerWritten);
}

/** What 7-Zip's complaints mean, in words; its own text names internal paths and codes. */
const ARCHIVE_PROBLEMS: readonly [RegExp, string][] = [
  [/unexpected end of (archive|data)|truncated/i, 'it ends early: the file was cut short'],
  [/can ?not open (the )?file as|is not archive|unsupported/i, 'its format could not be recognised'],
  [/headers? error/i, 'its headers are damaged'],
  [/data error|crc failed/i, 'some of its data is damaged'],
];

function archiveError(errors: readonly string[], crash: string | null): string {
  const said = [...errors, crash ?? ''].join('\n');
  // A crash is already described in words by the worker.
  const meaning = ARCHIVE_PROBLEMS.find(([pattern]) => pattern.test(said))?.[1] ?? crash ?? undefined;
  return meaning === undefined ? SKIP.corruptArchive : `${SKIP.corruptArchive} (${meaning})`;
}

/** Names 7-Zip complained about ("ERROR: Data Error : a/b.dcm"), normalised like our own paths. */
function failedNames(errors: readonly string[]): { names: Set<string>; wrongPassword: boolean } {
  const names = new Set<string>();
  for (const line of errors) {
    const name = erroredName(line);
    if (name !== null) names.add(name);
  }
  return { names, wrongPassword: errors.some((line) => /wrong password/i.test(line)) };
}

/** Only regular files that resolve inside outDir count; nothing found here is ever followed. */
async function regularFileInside(outDir: string, rel: string): Promise<{ file: string; size: number } | null> {
  const file = path.join(outDir, rel);
  try {
    const stat = await lstat(file);
    if (!stat.isFile()) return null;
    const real = await realpath(file);
    const root = await realpath(outDir);
    if (!real.startsWith(root + path.sep)) return null;
    return { file, size: stat.size };
  } catch {
    return null;
  }
}

export async function extractLayer(input: LayerInput): Promise<LayerResult> {
  await mkdir(input.outDir, { recursive: true });
  const archiveBytes = (await lstat(input.archive)).size;
  if (SINGLE_STREAM_KINDS.has(input.kind)) return extractSingleStream(input, archiveBytes);
  return extractMany(input, archiveBytes);
}

async function extractSingleStream(input: LayerInput, archiveBytes: number): Promise<LayerResult> {
  const format = FORMATS[input.kind];
  let analysis: EntryAnalysis | null = null;
  const result = await input.sevenZip.extract(
    {
      archive: input.archive,
      format,
      outDir: input.outDir,
      include: null,
      guard: guardFor(input, archiveBytes, {}, true),
      maxDicomHeaderBytes: input.limits.maxDicomHeaderBytes,
    },
    (file) => (analysis = file.analysis),
  );
  input.budget.remainingBytes -= result.written;
  if (result.stop !== null) {
    await rm(input.outDir, { recursive: true, force: true });
    return { ok: true, layer: finishedLayer([{ type: 'skipped', path: '', reason: STOP_REASONS[result.stop.reason], size: null }], 0, false) };
  }
  const produced = result.completed.length === 1 ? await regularFileInside(input.outDir, result.completed[0]!) : null;
  const damaged = result.crash !== null || result.exitCode !== 0 || result.errors.length > 0;
  if (produced === null || (damaged && produced.size === 0)) return { ok: false, error: archiveError(result.errors, result.crash), encrypted: false };
  // The worker read the file before 7-Zip could report damage at the end: trust only a clean run.
  const item: LayerItem = { type: 'kept', path: '', file: produced.file, size: produced.size, sha256: null, analysis: damaged ? null : analysis };
  return { ok: true, layer: finishedLayer([item], 0, damaged) };
}

type Outcome =
  | { state: 'done'; sha256: string | null; analysis: EntryAnalysis | null; inPlaceAt: number | null }
  | { state: 'skipped'; reason: SkipReason };

/**
 * The layer's plan, as it is made: a plain zip's directory or a plain tar's headers are counted
 * first (the native paths), other archives are listed by 7-Zip (the listing kept packed); then the
 * directory, headers or listing are read again entry by entry while the windows are extracted.
 */
interface LayerPlan {
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

async function planLayer(input: LayerInput): Promise<LayerPlan | Extract<LayerResult, { ok: false }>> {
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
function windowedKind(kind: ArchiveKind, native: 'zip' | 'tar' | null): boolean {
  return kind === 'zip' || native === 'tar';
}

function nativeZipMember(rel: string, entry: ListedEntry): NativeZipMember {
  if (!('zip' in entry) || entry.size === null) throw new Error(`${rel} was not listed from a zip's central directory`);
  return { rel, size: entry.size, ...(entry as ZipListedEntry).zip };
}

function nativeTarMember(rel: string, entry: ListedEntry): NativeTarMember {
  if (!('tar' in entry) || entry.size === null) throw new Error(`${rel} was not listed from a tar's headers`);
  return { rel, size: entry.size, ...(entry as TarListedEntry).tar };
}

async function extractMany(input: LayerInput, archiveBytes: number): Promise<LayerResult> {
  const format = FORMATS[input.kind];
  const plan = await planLayer(input);
  if ('ok' in plan) return plan;
  const { native } = plan;
  const windowed = windowedKind(input.kind, native);
  input.seeEntries(plan.listed + plan.overflow);
  input.budget.remainingEntries -= plan.listed;

  let truncated = plan.truncated;
  // 7-Zip's runs go at most a bounded number of files ahead of the job (native runs are a window each).
  const credit = native === null ? new RunCredit() : null;
  type Window = PlanWindow<Outcome>;
  type Decide = (p: string, value: Outcome) => void;
  const queue = new WindowQueue<Outcome>();
  const holds = new Holds();
  let inFlight: Promise<unknown> = Promise.resolve();
  // What this layer wrote in earlier runs: the ratio allowance is the layer's, not each run's.
  let layerWritten = 0;

  const sizeIn = (window: Window) => (p: string): number | null => window.include.get(p)!.size;
  const expectedSizes = (window: Window, paths: readonly string[]): Record<string, number> => {
    const sizes: Record<string, number> = {};
    for (const p of paths) {
      const size = window.include.get(p)!.size;
      if (size !== null) sizes[p] = size;
    }
    return sizes;
  };
  const settledTo = (decide: Decide) => (file: SettledFile): void =>
    decide(file.rel, file.failed ? { state: 'skipped', reason: SKIP.corruptData } : { state: 'done', sha256: file.sha256, analysis: file.analysis, inPlaceAt: file.inPlaceAt });

  /** Counts what a finished run wrote and decides what it reported; answers the guard's stop, if any. */
  const afterRun = async (result: ExtractResult, decide: Decide): Promise<StopReason | null> => {
    input.budget.remainingBytes -= result.written;
    layerWritten += result.written;
    const { names: failed } = failedNames(result.errors);
    for (const p of failed) decide(p, { state: 'skipped', reason: SKIP.corruptData });
    for (const p of result.completed) decide(p, { state: 'done', sha256: null, analysis: null, inPlaceAt: null });
    if (result.crash !== null || result.exitCode !== 0) truncated = true;
    const stop = result.stop;
    if (stop === null) return null;
    if (stop.path !== null) {
      decide(stop.path, { state: 'skipped', reason: STOP_REASONS[stop.reason] });
      await rm(path.join(input.outDir, stop.path), { force: true });
    }
    return stop.reason;
  };
  const isBudget = (reason: StopReason | null): reason is 'total' | 'ratio' => reason === 'total' || reason === 'ratio';

  const extractRun = (window: Window, worker: SevenZipWorker, paths: readonly string[], budget: WriteGuard): Promise<ExtractResult> => {
    const onSettled = settledTo((p, value) => window.outcomes.decide(p, value));
    const common = { archive: input.archive, outDir: input.outDir, guard: budget, maxDicomHeaderBytes: input.limits.maxDicomHeaderBytes, inPlace: input.inPlace };
    if (native === 'zip') return worker.extractNativeZip({ ...common, members: paths.map((p) => nativeZipMember(p, window.include.get(p)!)) }, onSettled);
    if (native === 'tar') return worker.extractNativeTar({ ...common, members: paths.map((p) => nativeTarMember(p, window.include.get(p)!)) }, onSettled);
    return worker.extract(
      {
        archive: input.archive,
        format,
        outDir: input.outDir,
        include: paths.map((p) => window.include.get(p)!.rawPath),
        guard: budget,
        settledOnly: true,
        ...(credit === null ? {} : { credit: credit.shared }),
        maxDicomHeaderBytes: input.limits.maxDicomHeaderBytes,
      },
      onSettled,
    );
  };

  /** Extracts one window, rerunning without an entry that proved larger than its header; answers a budget stop. */
  const runWindow = async (window: Window): Promise<StopReason | null> => {
    const { outcomes } = window;
    const decide: Decide = (p, value) => outcomes.decide(p, value);
    const sizeOf = sizeIn(window);
    let pending: readonly string[] = [...window.include.keys()];
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      const guard = guardFor(input, archiveBytes, expectedSizes(window, pending), false, layerWritten);
      const parallel =
        attempt === 0 &&
        input.secondSevenZip !== null &&
        pending.length >= PARALLEL_MIN_ENTRIES &&
        (pending.length === window.include.size ? window.bytes : pending.reduce((sum, p) => sum + (sizeOf(p) ?? 0), 0)) >= PARALLEL_MIN_BYTES;
      const results = parallel
        ? await Promise.all(splitRuns(pending, sizeOf, guard).map(({ paths, budget }, i) => extractRun(window, i === 0 ? input.sevenZip : input.secondSevenZip!(), paths, budget)))
        : [await extractRun(window, input.sevenZip, pending, guard)];
      let budgetStop: StopReason | null = null;
      let stopped = false;
      for (const result of results) {
        const stop = await afterRun(result, decide);
        stopped ||= stop !== null;
        if (isBudget(stop)) budgetStop = stop;
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
  };

  /** The raw names and stated sizes of the planned entries no run has decided yet, the plan read again. */
  const undecidedEntries = async (): Promise<{ rawPaths: string[]; sizes: Record<string, number> }> => {
    const rawPaths: string[] = [];
    const sizes: Record<string, number> = {};
    let ordinal = 0;
    for await (const item of plan.items()) {
      if (item.type !== 'planned') continue;
      if (queue.undecided(item.path, ordinal)) {
        rawPaths.push(item.entry.rawPath);
        if (item.entry.size !== null) sizes[item.path] = item.entry.size;
      }
      ordinal += 1;
    }
    return { rawPaths, sizes };
  };

  /**
   * One 7-Zip run for every window of a layer it reads from start to end, held back by the run
   * credit, rerun (reading the whole archive again) for what is left after an entry proved larger
   * than its header.
   */
  const runThrough = async (): Promise<void> => {
    const decide: Decide = (p, value) => queue.decide(p, value);
    let verdict: Outcome | null = null;
    try {
      for (let attempt = 0; ; attempt += 1) {
        await holds.free();
        if (queue.released) return;
        // Every listed entry, when all were planned: 7-Zip then needs no list of names, whose matching
        // costs it minutes for 100,000 entries; the entries past the cap follow them and are not
        // written, and the guard holds each file to the size the worker's own listing states.
        const whole = attempt === 0 && plan.allPlanned;
        const pending = whole ? null : await undecidedEntries();
        if (pending !== null && pending.rawPaths.length === 0) return;
        const running = input.sevenZip.extract(
          {
            archive: input.archive,
            format,
            outDir: input.outDir,
            include: pending === null ? null : pending.rawPaths,
            ...(whole && plan.overflow > 0 ? { stopAfterFiles: plan.listed } : {}),
            ...(whole ? { sizesFromListing: true } : {}),
            guard: guardFor(input, archiveBytes, pending === null ? {} : pending.sizes, false, layerWritten),
            settledOnly: true,
            ...(credit === null ? {} : { credit: credit.shared }),
            maxDicomHeaderBytes: input.limits.maxDicomHeaderBytes,
          },
          settledTo(decide),
        );
        inFlight = running;
        const stop = await afterRun(await running, decide);
        if (stop === null) return;
        // Once the budget is spent, what is left of the plan is skipped for that reason, unwritten.
        if (isBudget(stop)) verdict = { state: 'skipped', reason: STOP_REASONS[stop] };
        else if (attempt + 1 >= MAX_RERUNS) verdict = { state: 'skipped', reason: SKIP.headerLied };
        if (verdict !== null) return;
      }
    } finally {
      queue.runOver(verdict);
    }
  };

  const extraction = windowed ? Promise.resolve() : runThrough();
  const planning = async (): Promise<void> => {
    let index = 0;
    let budgetStop: StopReason | null = null;
    for await (const window of planWindows<Outcome>(plan.items())) {
      // The job has finished the window before the previous one: two windows at most wait for it.
      await queue.finished(index - 1);
      index += 1;
      // The job stopped taking entries (abort, budget): extracting more would be for nobody.
      if (queue.released) return;
      queue.push(window);
      if (!windowed) continue;
      if (budgetStop === null) {
        await holds.free();
        if (queue.released) return;
        const running = runWindow(window);
        inFlight = running;
        budgetStop = await running;
      }
      // Once the budget is spent, what is left of the plan is skipped for that reason, unwritten.
      if (budgetStop !== null) for (const p of window.include.keys()) window.outcomes.decide(p, { state: 'skipped', reason: STOP_REASONS[budgetStop] });
    }
  };
  // A plan that fails lets the run go on alone to its end rather than wait for entries nobody takes.
  const planned = planning().catch((error: unknown) => {
    credit?.unlimited();
    throw error;
  });
  const done = Promise.allSettled([planned, extraction]).then((settled) => {
    queue.end();
    for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  });
  // The consumer may stop early (abort); the rejection is still seen through `done` or `items`.
  done.catch(() => undefined);
  // What the job waits for when an entry was left undecided: a run serving every window ends
  // before the windows are all planned, which wait for the job.
  const runsEnded = windowed ? done : extraction;

  async function* yieldInOrder(): AsyncGenerator<LayerItem> {
    try {
      for (let window = await queue.next(); window !== undefined; window = await queue.next()) {
        yield* inOrder(window);
        queue.finish(window);
      }
    } finally {
      queue.release();
      credit?.unlimited();
    }
  }

  async function* inOrder(window: Window): AsyncGenerator<LayerItem> {
    for (const item of window.items) {
      credit?.took();
      if (item.type !== 'planned') {
        yield item;
        continue;
      }
      const decided = await window.outcomes.next(item.path);
      // Undecided when the run ended: its failure, if it failed, is the consumer's answer.
      if (decided === undefined) await runsEnded;
      const state = decided ?? { state: 'skipped', reason: SKIP.notExtracted };
      const analysis = state.state === 'done' ? state.analysis : null;
      if (state.state === 'done' && state.inPlaceAt !== null && state.sha256 !== null && analysis !== null) {
        yield { type: 'in-place', path: item.path, at: state.inPlaceAt, sha256: state.sha256, analysis };
        continue;
      }
      const onDisk =
        analysis !== null
          ? { file: path.join(input.outDir, item.path), size: analysis.size }
          : state.state === 'done'
            ? await regularFileInside(input.outDir, item.path)
            : null;
      const sizeAgrees = onDisk !== null && (item.entry.size === null || onDisk.size === item.entry.size);
      if (state.state === 'done' && onDisk !== null && sizeAgrees) {
        yield { type: 'kept', path: item.path, file: onDisk.file, size: onDisk.size, sha256: state.sha256, analysis };
        continue;
      }
      const reason = state.state === 'done' ? SKIP.corruptData : state.reason;
      await rm(path.join(input.outDir, item.path), { force: true });
      yield { type: 'skipped', path: item.path, reason, size: item.entry.size };
    }
  }

  const layer: Layer = {
    items: yieldInOrder(),
    done,
    overflow: plan.overflow,
    truncated: () => truncated,
    pause: async () => {
      holds.hold();
      credit?.unlimited();
      await inFlight.catch(() => undefined);
    },
    resume: () => holds.release(),
  };
  return { ok: true, layer };
}
