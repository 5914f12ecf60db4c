// Messages between the job's thread and the worker thread that runs 7-Zip (WebAssembly).
import type { EntryAnalysis } from '../../entry-analysis.js';
import type { Listing } from './sevenzip-listing.js';
import type { ZipLocation } from '../zip/zip-directory.js';
import type { TarLocation } from '../tar/tar-headers.js';

/** 7-Zip's names for the formats we open; passing one (-t) stops 7-Zip from guessing. */
export type SevenZipFormat = '7z' | 'zip' | 'rar' | 'rar5' | 'tar' | 'gzip' | 'bzip2' | 'xz' | 'lzma';

export interface ListRequest {
  op: 'list';
  archive: string;
  format: SevenZipFormat;
  /** Entries kept in the answer; the rest are only counted. */
  cap: number;
}

export interface WriteGuard {
  /** Per-file cap while writing; null for a single stream's output (limited by the budget alone). */
  maxEntryBytes: number | null;
  /** Sizes the listing promised, by normalised path: writing more means the header lied. */
  expectedSizes: Record<string, number>;
  /** Bytes this run may write in all (the upload's remaining total, or the layer's ratio allowance). */
  budgetBytes: number;
  budgetReason: 'total' | 'ratio';
}

export interface ExtractRequest {
  op: 'extract';
  archive: string;
  format: SevenZipFormat;
  outDir: string;
  /**
   * Raw listed names to extract; null extracts everything (single streams, and archives whose
   * listed entries were all planned). 7-Zip matches each entry against every name of the list,
   * so 100,000 names cost ~10^10 comparisons: minutes.
   */
  include: string[] | null;
  /**
   * With include null: the run ends once this many files have been opened for writing. Entries
   * past the listing's cap come after the listed ones, and are never written.
   */
  stopAfterFiles?: number;
  /**
   * The sizes the guard holds files to are those of the listing this worker made of the archive
   * just before (with `guard.expectedSizes` empty): every listed entry is extracted.
   */
  sizesFromListing?: boolean;
  /** Files are reported as they settle, and `completed` stays empty (not 100,000 names long). */
  settledOnly?: boolean;
  /**
   * Files the run may open before it waits, raised by the job as it takes entries (RunCredit,
   * run-credit.ts; backed by a SharedArrayBuffer). Without it the run never waits.
   */
  credit?: Int32Array<SharedArrayBuffer>;
  guard: WriteGuard;
  /** How far into a DICOM file the worker may read for its header when it settles the file. */
  maxDicomHeaderBytes: number;
}

/** One planned entry for a native path (zip or tar). */
export interface NativeMember {
  /** Normalised path under outDir. */
  rel: string;
  /** Uncompressed size from the listing; more bytes than this is a lying header. */
  size: number;
}

/** One planned entry of a plain zip, for the native zip path. */
export interface NativeZipMember extends NativeMember, ZipLocation {}

/** One planned entry of a tar the header walk read, for the native tar path. */
export interface NativeTarMember extends NativeMember, TarLocation {}

/** Extracts members without 7-Zip; answers and settles files as `extract` does. */
export interface NativeRequest<M extends NativeMember> {
  archive: string;
  outDir: string;
  members: M[];
  guard: WriteGuard;
  maxDicomHeaderBytes: number;
  /**
   * The archive is the stored upload itself: stored members that are not archives are checked
   * where they lie and not written out (their bytes stay downloadable as a range of the upload).
   */
  inPlace: boolean;
}

export interface NativeZipRequest extends NativeRequest<NativeZipMember> {
  op: 'native-zip';
}

export interface NativeTarRequest extends NativeRequest<NativeTarMember> {
  op: 'native-tar';
}

/** A compiled WebAssembly.Module (typed loosely: without the DOM library TypeScript has no WebAssembly types). */
export type WasmModule = object;

export type WorkerRequest = (ListRequest | ExtractRequest | NativeZipRequest | NativeTarRequest) & { id: number };

export type StopReason = 'entry-too-large' | 'header-lied' | 'total' | 'ratio';

export interface ExtractResult {
  exitCode: number | null;
  /** 7-Zip's "ERROR: …" lines (capped). */
  errors: string[];
  /** Output files 7-Zip finished writing, relative to outDir, in the order it wrote them. */
  completed: string[];
  /** Set when the write guard stopped 7-Zip; path is the file being written then. */
  stop: { reason: StopReason; path: string | null } | null;
  /** 7-Zip itself failed (WebAssembly trap or C++ exception), e.g. on a truncated archive. */
  crash: string | null;
  written: number;
}

export interface ListResult {
  exitCode: number | null;
  listing: Listing;
  crash: string | null;
}

/**
 * Sent while extracting, once a file is final: 7-Zip reports a file's errors before it opens the
 * next one, so a file is settled when the next opens or the run ends. Lets the job process entries
 * while 7-Zip is still writing later ones.
 */
export interface SettledFile {
  rel: string;
  /** Of the bytes written, computed as they passed the guard; null if 7-Zip did not write in order. */
  sha256: string | null;
  /** 7-Zip reported an error (CRC, data error) for this file. */
  failed: boolean;
  /** Read by the worker as the file settled; null if it failed or was not a regular file inside. */
  analysis: EntryAnalysis | null;
  /** Set when nothing was written: the file is `analysis.size` bytes of the archive from here. */
  inPlaceAt: number | null;
}

export type WorkerReply =
  /** Files settled since the last such message, in the order they settled. */
  | { id: number; settled: SettledFile[] }
  | { id: number; ok: true; result: ListResult | ExtractResult }
  | { id: number; ok: false; error: string };

/**
 * What the job's thread sends a 7-Zip process (sevenzip-process.ts), which passes requests on to
 * its thread: a shared run credit cannot cross processes, so a request's credit travels as its
 * starting value and each raise of it as a message of its own.
 */
export type ProcessMessage = { request: WorkerRequest; creditFrom: number | null } | { creditOf: number; allowed: number };
