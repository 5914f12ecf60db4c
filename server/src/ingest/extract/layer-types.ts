// What one extraction layer takes and hands back, shared by the single-stream path (extract-layer.ts)
// and the steps of a layer of many entries (extract-many.ts and the files it names).
import type { ArchiveKind } from '../detect/detect-kind.js';
import type { EntryAnalysis } from '../entry-analysis.js';
import type { IngestLimits } from '../limits.js';
import type { SkipReason } from '../skip-reasons.js';
import type { LayerBudget } from './layer-budget.js';
import type { WindowSize } from './plan-windows.js';
import type { SevenZipWorker } from './sevenzip/sevenzip-client.js';
import type { SevenZipFormat } from './sevenzip/sevenzip-protocol.js';

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

export type LayerResult = { ok: true; layer: Layer } | { ok: false; error: string; encrypted: boolean };
export type LayerFailure = Extract<LayerResult, { ok: false }>;

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
  /** Windows of another size than WINDOW_ENTRIES and WINDOW_BYTES (tests of many windows). */
  window?: WindowSize;
}

/** What extraction decided about one planned entry; the hand-over checks a 'done' one on disk. */
export type Outcome =
  | { state: 'done'; sha256: string | null; analysis: EntryAnalysis | null; inPlaceAt: number | null }
  | { state: 'skipped'; reason: SkipReason };

/** Records the outcome of the planned entry at a path, wherever it is waited for. */
export type Decide = (path: string, outcome: Outcome) => void;

export const FORMATS: Record<ArchiveKind, SevenZipFormat> = {
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
