// One extraction layer: a single stream (gzip, bzip2, xz, lzma) decompressed by 7-Zip here, or an
// archive of many entries (extract-many.ts): listed natively for a plain zip or tar, else by 7-Zip,
// its entries planned (plan-entries.ts), extracted under a write guard (layer-budget.ts), and
// checked on disk as they are handed on in archive order.
import { lstat, mkdir, rm } from 'node:fs/promises';
import { SINGLE_STREAM_KINDS } from '../detect/detect-kind.js';
import type { EntryAnalysis } from '../entry-analysis.js';
import { archiveError } from './archive-problems.js';
import { extractMany } from './extract-many.js';
import { writeGuard } from './layer-budget.js';
import { FORMATS, type Layer, type LayerInput, type LayerItem, type LayerResult } from './layer-types.js';
import { regularFileInside } from './output-file.js';
import { STOP_REASONS } from './run-tally.js';

export type { Layer, LayerInput, LayerItem, LayerResult } from './layer-types.js';

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

export async function extractLayer(input: LayerInput): Promise<LayerResult> {
  await mkdir(input.outDir, { recursive: true });
  const archiveBytes = (await lstat(input.archive)).size;
  if (SINGLE_STREAM_KINDS.has(input.kind)) return extractSingleStream(input, archiveBytes);
  return extractMany(input, archiveBytes);
}

async function extractSingleStream(input: LayerInput, archiveBytes: number): Promise<LayerResult> {
  let analysis: EntryAnalysis | null = null;
  const result = await input.sevenZip.extract(
    {
      archive: input.archive,
      format: FORMATS[input.kind],
      outDir: input.outDir,
      include: null,
      guard: writeGuard(input.limits, input.budget.remainingBytes, archiveBytes, {}, true),
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
