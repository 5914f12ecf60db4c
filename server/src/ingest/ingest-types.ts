// The engine's public shapes: what the job passes in and what it gets back.
import type { TDicomFields, TEntryKind, TProcessingSummary } from '@portal/contract';
import type { WindowSize } from './extract/plan-windows.js';
import type { IngestLimits } from './limits.js';

export interface IngestInput {
  /** The stored upload. Read only; never moved or deleted. */
  inputPath: string;
  /** The name the user gave the file: its extension must agree with the content. */
  originalName: string;
  /** A directory on the same file system as storage, so kept entries can be renamed into it. */
  workDir: string;
  limits?: Partial<IngestLimits>;
  /**
   * 7-Zip threads for a zip of many entries: 2 (default) halves the time on a free second core;
   * 1 keeps the job to one core when several jobs run at once.
   */
  threads?: 1 | 2;
  /** Aborting stops 7-Zip at once and makes ingestUpload reject with the signal's reason. */
  signal?: AbortSignal;
  /** Windows smaller than a layer's default (plan-windows.ts), so a test sees many of them in a small archive. */
  window?: WindowSize;
}

export interface IngestedEntry {
  /**
   * Where the entry is inside the upload, '/'-separated: 'a/b.dcm', and 'inner.zip/x.dcm' for
   * nested archives. Single-stream layers are transparent ('scan.tar.gz' holds 'a/b.dcm'); a
   * compressed leaf is named without its compression suffix ('x.dcm.gz' → 'x.dcm').
   */
  path: string;
  /** Bytes of the entry as extracted (for skipped entries, as listed, or 0 when unknown). */
  size: number;
  /** Of the extracted bytes; null for skipped entries. */
  sha256: string | null;
  kind: TEntryKind;
  /** Why it was skipped, or why a DICOM-looking entry could not be read; otherwise null. */
  reason: string | null;
  dicom: TDicomFields | null;
  /**
   * For kept entries: a file the callback may rename or copy into storage before it resolves.
   * Whatever is still there afterwards is deleted, unless it is the upload itself (inputIsEntry).
   */
  tempPath: string | null;
  /** True when the upload is the entry (a directly uploaded .dcm): tempPath is then inputPath. */
  inputIsEntry: boolean;
  /**
   * A stored (uncompressed) member of a zip upload, checked where it lies and never written out:
   * its bytes are `size` bytes of the upload from this offset. tempPath is then null.
   */
  inUploadAt: number | null;
}

export type IngestSummary = TProcessingSummary & { skipped_reasons: Record<string, number> };

export interface IngestResult {
  status: 'ready' | 'failed';
  /** Why the whole upload failed, in words its owner can act on; null when ready. */
  error: string | null;
  summary: IngestSummary;
}

/**
 * Answers 'moved' when it moved `tempPath` away (into storage): otherwise whatever is left there
 * is deleted once it resolves.
 */
export type OnEntry = (entry: IngestedEntry) => Promise<'moved' | void>;
