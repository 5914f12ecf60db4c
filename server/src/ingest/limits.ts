// The bounds that keep one upload from exhausting disk, memory or time, whatever its content says.

export interface IngestLimits {
  /** Files kept across all nesting levels; later files are skipped as 'too many entries'. */
  maxEntries: number;
  /**
   * Bytes written by all extraction layers together (a .tar.gz counts its tar and the tar's
   * files). Enforced while writing, so an archive whose headers understate sizes still stops here.
   */
  maxTotalBytes: number;
  /** One extracted file. Does not apply to the output of a single-stream layer (.gz → .tar). */
  maxEntryBytes: number;
  /**
   * Output bytes per input byte, per entry (from the listing) and per layer (while writing).
   * Only checked once output passes ratioFloorBytes, so small, very compressible files pass.
   */
  maxCompressionRatio: number;
  ratioFloorBytes: number;
  /** Extraction layers from the upload down; .tar.gz is two (gzip, then tar). */
  maxDepth: number;
  /** How much of a DICOM file may be read to find its header (pixel data is never read). */
  maxDicomHeaderBytes: number;
  /**
   * The work budget (work-budget.ts): archives opened (every extraction layer, the upload itself
   * and each .gz inside included), entries listed by all of them together (kept, skipped or only
   * counted), and wall-clock time of one run. Crossing one fails the upload with the reason.
   */
  maxArchives: number;
  maxEntriesSeen: number;
  maxProcessingMs: number;
}

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/**
 * Real uploads are CT/MR series of hundreds of ~0.5 MB files, up to several GB in all; a single
 * enhanced multi-frame object can reach a few GB. Deflate tops out near 1032:1, and DICOM rarely
 * compresses beyond 20:1, so 200:1 only stops deliberately crafted content.
 */
export const DEFAULT_LIMITS: Readonly<IngestLimits> = Object.freeze({
  maxEntries: 100_000,
  maxTotalBytes: 64 * GiB,
  maxEntryBytes: 8 * GiB,
  maxCompressionRatio: 200,
  ratioFloorBytes: 16 * MiB,
  maxDepth: 6,
  maxDicomHeaderBytes: 16 * MiB,
  // A real upload holds a handful of archives (one per study or series, a .tar.gz counting two);
  // 1,000 leaves room for a zip of zips per patient while a nest like 16×16×16 stops after
  // seconds instead of minutes.
  maxArchives: 1000,
  // Ten times the files one upload may keep: listings past maxEntries are only counted, but a
  // nest of archives each declaring thousands of entries must not be walked forever.
  maxEntriesSeen: 1_000_000,
  // The 2 GB zip of docs/performance.md ("Current figures", Ingest) takes well under a minute; a 20 GB upload
  // some minutes.
  maxProcessingMs: 60 * 60 * 1000,
});

export function resolveLimits(overrides: Partial<IngestLimits> = {}): IngestLimits {
  const limits = { ...DEFAULT_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`limit ${name} must be a non-negative number`);
  }
  return limits;
}
