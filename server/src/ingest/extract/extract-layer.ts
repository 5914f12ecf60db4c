// One extraction layer: list the archive (natively for a plain zip, else with 7-Zip), plan its
// entries (plan-entries.ts), extract the planned ones under a write guard (layer-budget.ts), and
// check on disk what was actually produced, handing entries on in archive order.
import { lstat, mkdir, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ArchiveKind } from '../detect/detect-kind.js';
import { SINGLE_STREAM_KINDS } from '../detect/detect-kind.js';
import type { EntryAnalysis } from '../entry-analysis.js';
import type { IngestLimits } from '../limits.js';
import type { ListedEntry } from './sevenzip/sevenzip-listing.js';
import type { ExtractResult, ListResult, SettledFile, SevenZipFormat, StopReason, NativeZipMember, WriteGuard } from './sevenzip/sevenzip-protocol.js';
import { readZipDirectory, type ZipListedEntry } from './zip/zip-directory.js';
import type { SevenZipWorker } from './sevenzip/sevenzip-client.js';
import { sevenZipHeadersEncrypted } from './sevenzip/sevenz-header.js';
import { ENCRYPTED_MESSAGE, SKIP, type SkipReason } from '../skip-reasons.js';
import { splitRuns, writeGuard, type LayerBudget } from './layer-budget.js';
import { planEntriesYielding } from './plan-entries.js';
import { SettledOutcomes } from './settled-outcomes.js';
import { erroredName } from './sevenzip/sevenzip-errors.js';

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
   * Holds the layer's extraction between two windows (resolving once none is running), so a
   * nested archive found meanwhile is extracted alone and the byte budget is never granted twice.
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
 * A zip's entries are extracted a window at a time, each once the job has taken the entries of the
 * window before: what waits between extraction and the job (files on disk, outcomes in memory,
 * members in the worker) is at most two windows, whatever the entry count.
 */
const WINDOW_ENTRIES = 2000;
const WINDOW_BYTES = 512 * 1024 ** 2;

function windows(paths: readonly string[], sizeOf: (path: string) => number | null, kind: ArchiveKind): string[][] {
  // Other formats are read from start to end (solid 7z, tar in a stream): one pass, not one per window.
  if (kind !== 'zip') return [paths.slice()];
  const result: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const p of paths) {
    const size = sizeOf(p) ?? 0;
    if (current.length > 0 && (current.length >= WINDOW_ENTRIES || bytes + size > WINDOW_BYTES)) {
      result.push(current);
      current = [];
      bytes = 0;
    }
    current.push(p);
    bytes += size;
  }
  if (current.length > 0) result.push(current);
  return result;
}

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

/** Lists with yauzl when the zip is plain enough for the native path, else with 7-Zip. */
async function listLayer(input: LayerInput): Promise<{ listed: ListResult; native: boolean }> {
  const zip = input.kind === 'zip' ? await readZipDirectory(input.archive, input.budget.remainingEntries) : null;
  if (zip === null) {
    return { listed: await input.sevenZip.list({ archive: input.archive, format: FORMATS[input.kind], cap: input.budget.remainingEntries }), native: false };
  }
  const listing = { entries: zip.entries, overflow: zip.overflow, errors: [], encrypted: false };
  return { listed: { exitCode: 0, listing, crash: null }, native: true };
}

function nativeZipMember(rel: string, entry: ListedEntry): NativeZipMember {
  if (!('zip' in entry) || entry.size === null) throw new Error(`${rel} was not listed from a zip's central directory`);
  return { rel, size: entry.size, ...(entry as ZipListedEntry).zip };
}

async function extractMany(input: LayerInput, archiveBytes: number): Promise<LayerResult> {
  const format = FORMATS[input.kind];
  const { listed, native } = await listLayer(input);
  const { listing } = listed;
  if (listing.encrypted) return { ok: false, error: ENCRYPTED_MESSAGE, encrypted: true };
  const unreadable = listed.crash !== null || (listed.exitCode !== 0 && listing.entries.length === 0);
  if (unreadable && input.kind === '7z' && (await sevenZipHeadersEncrypted(input.archive)))
    return { ok: false, error: ENCRYPTED_MESSAGE, encrypted: true };
  if (unreadable) return { ok: false, error: archiveError(listing.errors, listed.crash), encrypted: false };
  input.seeEntries(listing.entries.length + listing.overflow);
  input.budget.remainingEntries -= listing.entries.length;

  const { items, include } = await planEntriesYielding(listing.entries, input.limits, input.budget.remainingBytes);
  const sizeOf = (p: string): number | null => include.get(p)!.size;
  const expectedSizes = (paths: readonly string[]): Record<string, number> => {
    const sizes: Record<string, number> = {};
    for (const p of paths) {
      const size = sizeOf(p);
      if (size !== null) sizes[p] = size;
    }
    return sizes;
  };

  const outcomes = new SettledOutcomes<Outcome>(include);
  let truncated = listing.errors.length > 0;
  const decide = (p: string, value: Outcome): void => outcomes.decide(p, value);

  const onSettled = (file: SettledFile): void => {
    decide(
      file.rel,
      file.failed ? { state: 'skipped', reason: SKIP.corruptData } : { state: 'done', sha256: file.sha256, analysis: file.analysis, inPlaceAt: file.inPlaceAt },
    );
  };
  const extractRun = (worker: SevenZipWorker, paths: readonly string[], budget: WriteGuard): Promise<ExtractResult> =>
    native
      ? worker.extractNativeZip(
          {
            archive: input.archive,
            outDir: input.outDir,
            members: paths.map((p) => nativeZipMember(p, include.get(p)!)),
            guard: budget,
            maxDicomHeaderBytes: input.limits.maxDicomHeaderBytes,
            inPlace: input.inPlace,
          },
          onSettled,
        )
      : worker.extract(
          {
            archive: input.archive,
            format,
            outDir: input.outDir,
            include: paths.map((p) => include.get(p)!.rawPath),
            guard: budget,
            maxDicomHeaderBytes: input.limits.maxDicomHeaderBytes,
          },
          onSettled,
        );

  // What this layer wrote in earlier runs: the ratio allowance is the layer's, not each run's.
  let layerWritten = 0;
  /** Extracts one window, rerunning without an entry that proved larger than its header; answers a budget stop. */
  const runWindow = async (window: readonly string[]): Promise<StopReason | null> => {
    let pending = window;
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      const guard = guardFor(input, archiveBytes, expectedSizes(pending), false, layerWritten);
      const parallel = attempt === 0 && input.kind === 'zip' && input.secondSevenZip !== null && pending.length >= PARALLEL_MIN_ENTRIES;
      const results = parallel
        ? await Promise.all(splitRuns(pending, sizeOf, guard).map(({ paths, budget }, i) => extractRun(i === 0 ? input.sevenZip : input.secondSevenZip!(), paths, budget)))
        : [await extractRun(input.sevenZip, pending, guard)];
      let budgetStop: StopReason | null = null;
      let stopped = false;
      for (const result of results) {
        input.budget.remainingBytes -= result.written;
        layerWritten += result.written;
        const { names: failed } = failedNames(result.errors);
        for (const p of failed) decide(p, { state: 'skipped', reason: SKIP.corruptData });
        for (const p of result.completed) decide(p, { state: 'done', sha256: null, analysis: null, inPlaceAt: null });
        if (result.crash !== null || result.exitCode !== 0) truncated = true;
        const stop = result.stop;
        if (stop === null) continue;
        stopped = true;
        if (stop.path !== null) {
          decide(stop.path, { state: 'skipped', reason: STOP_REASONS[stop.reason] });
          await rm(path.join(input.outDir, stop.path), { force: true });
        }
        if (stop.reason === 'total' || stop.reason === 'ratio') budgetStop = stop.reason;
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

  const holds = new Holds();
  let inFlight: Promise<unknown> = Promise.resolve();
  const run = async (): Promise<void> => {
    const all = [...include.keys()];
    let start = 0;
    let previousStart = 0;
    for (const window of windows(all, sizeOf, input.kind)) {
      // The job has reached the window before this one: two windows at most are waiting for it.
      await outcomes.taken(previousStart);
      await holds.free();
      // The job stopped taking entries (abort, budget): extracting more would be for nobody.
      if (outcomes.released) return;
      const running = runWindow(window);
      inFlight = running;
      const budgetStop = await running;
      if (budgetStop !== null) {
        for (const p of all.slice(start)) decide(p, { state: 'skipped', reason: STOP_REASONS[budgetStop] });
        return;
      }
      previousStart = start;
      start += window.length;
    }
  };
  const done = run().finally(() => outcomes.end());
  // The consumer may stop early (abort); the rejection is still seen through `done` or `items`.
  done.catch(() => undefined);

  async function* yieldInOrder(): AsyncGenerator<LayerItem> {
    try {
      yield* inOrder();
    } finally {
      outcomes.release();
    }
  }

  async function* inOrder(): AsyncGenerator<LayerItem> {
    for (const item of items) {
      if (item.type !== 'planned') {
        yield item;
        continue;
      }
      const decided = await outcomes.next(item.path);
      // Undecided when the run ended: its failure, if it failed, is the consumer's answer.
      if (decided === undefined) await done;
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
    overflow: listing.overflow,
    truncated: () => truncated,
    pause: async () => {
      holds.hold();
      await inFlight.catch(() => undefined);
    },
    resume: () => holds.release(),
  };
  return { ok: true, layer };
}
