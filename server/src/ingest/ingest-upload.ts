// The one entry point of the engine: detect, extract layer by layer, index DICOM, and
// hand each entry to the caller in a deterministic order (archive order, depth first).
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';
import path from 'node:path';
import {
  DETECT_BYTES,
  SINGLE_STREAM_KINDS,
  decompressedName,
  detectKind,
  extensionMismatch,
  isArchiveKind,
  type ArchiveKind,
} from './detect/detect-kind.js';
import { readDicomHeader } from './dicom/dicom-header.js';
import { summarizeHeader, type DicomSummary, type EntryAnalysis } from './entry-analysis.js';
import { joinEntryPath } from './entry-path.js';
import { extractLayer, type Layer } from './extract/extract-layer.js';
import type { LayerBudget } from './extract/layer-budget.js';
import { readHead, sha256File } from './hash-file.js';
import { resolveLimits, type IngestLimits } from './limits.js';
import type { OnEntry, IngestedEntry, IngestResult, IngestInput } from './ingest-types.js';
import { SevenZipWorker } from './extract/sevenzip/sevenzip-client.js';
import { ENCRYPTED_MESSAGE, SKIP } from './skip-reasons.js';
import { leafKind } from './leaf-kind.js';
import { SummaryBuilder } from './summary.js';
import { budgetMessage, WorkBudget, WorkBudgetExceeded } from './work-budget.js';

/** Entries handed on between two turns of the event loop. */
const EMIT_SLICE = 100;

/** A reason that fails the whole upload (as opposed to skipping one entry). */
class UploadFailure extends Error {}

interface Node {
  file: string;
  /** Already computed while 7-Zip wrote the file, when it could be. */
  sha256: string | null;
  /** What the 7-Zip worker read of the file when it settled, when it could. */
  analysis: EntryAnalysis | null;
  /** The entry's own path, used when it is a leaf. */
  path: string;
  /** What its children's paths start with ('' at the top). */
  prefix: string;
  depth: number;
  /** The upload itself, or a single stream's content at the top: failures here fail the upload. */
  top: boolean;
  isInput: boolean;
  /** Content of a single stream that ended early: kept only if it is itself an archive. */
  partial: boolean;
}

/** The walk of one upload: layer by layer, depth first, each entry handed to onEntry in order. */
class UploadWalk {
  readonly summary = new SummaryBuilder();
  private readonly budget: LayerBudget;
  private readonly work: WorkBudget;
  private sevenZip: SevenZipWorker | null = null;
  private secondSevenZip: SevenZipWorker | null = null;
  private layers = 0;
  /** Layers whose entries are being walked: each waits while a layer nested in it extracts. */
  private running: Layer[] = [];
  private emitted = 0;

  constructor(
    private readonly input: IngestInput,
    private readonly limits: IngestLimits,
    private readonly root: string,
    private readonly onEntry: OnEntry,
  ) {
    this.budget = { remainingBytes: limits.maxTotalBytes, remainingEntries: limits.maxEntries };
    this.work = new WorkBudget(limits);
  }

  async run(): Promise<IngestResult> {
    const { inputPath, originalName } = this.input;
    const kind = detectKind(await readHead(inputPath, DETECT_BYTES));
    const mismatch = extensionMismatch(originalName, kind);
    if (mismatch !== null) return this.failed(mismatch);
    const node: Node = { file: inputPath, sha256: null, analysis: null, path: originalName, prefix: '', depth: 0, top: true, isInput: true, partial: false };
    try {
      await this.visit(node);
    } catch (error) {
      if (error instanceof UploadFailure || error instanceof WorkBudgetExceeded) return this.failed(error.message);
      throw error;
    }
    return { status: 'ready', error: null, summary: this.summary.build() };
  }

  async close(): Promise<void> {
    await this.sevenZip?.close();
    await this.secondSevenZip?.close();
  }

  failed(error: string): IngestResult {
    return { status: 'failed', error, summary: this.summary.build() };
  }

  private checkAborted(): void {
    this.input.signal?.throwIfAborted();
  }

  private async emit(entry: Omit<IngestedEntry, 'inputIsEntry'>, isInput = false): Promise<void> {
    // Recording can run on microtasks alone (SQLite answers synchronously, skipped entries store
    // nothing): a turn of the event loop now and then keeps the API answering.
    if (++this.emitted % EMIT_SLICE === 0) await setImmediate();
    this.checkAborted();
    const full: IngestedEntry = { ...entry, inputIsEntry: isInput };
    this.summary.add(full);
    let moved = false;
    try {
      moved = (await this.onEntry(full)) === 'moved';
    } finally {
      if (full.tempPath !== null && !isInput && !moved) await rm(full.tempPath, { force: true });
    }
  }

  private async skip(entryPath: string, reason: string, size: number | null): Promise<void> {
    await this.emit({ path: entryPath, size: size ?? 0, sha256: null, kind: 'skipped', reason, dicom: null, tempPath: null, inUploadAt: null });
  }

  /** Answers whether the file was an archive (a leaf's file is gone or handed over afterwards). */
  private async visit(node: Node): Promise<boolean> {
    this.checkAborted();
    const kind = node.analysis?.kind ?? detectKind(await readHead(node.file, DETECT_BYTES));
    if (!isArchiveKind(kind)) {
      await this.visitLeaf(node, kind === 'dicom');
      return false;
    }
    await this.visitArchive(node, kind);
    return true;
  }

  private async header(node: Node): Promise<DicomSummary> {
    return node.analysis?.dicom ?? summarizeHeader(await readDicomHeader(node.file, this.limits.maxDicomHeaderBytes));
  }

  private async sizeAndHash(node: Node): Promise<{ sha256: string; size: number }> {
    if (node.sha256 === null) return sha256File(node.file, this.input.signal);
    return { sha256: node.sha256, size: node.analysis?.size ?? (await stat(node.file)).size };
  }

  private async visitLeaf(node: Node, looksDicom: boolean): Promise<void> {
    if (node.partial) {
      await this.skip(node.path, SKIP.corruptData, (await stat(node.file)).size);
      return;
    }
    const { sha256, size } = await this.sizeAndHash(node);
    const base = { path: node.path, size, sha256, tempPath: node.file, inUploadAt: null };
    await this.emitLeaf(base, looksDicom ? await this.header(node) : null, node.isInput);
  }

  /** A kept file: 'dicom' when its header reads (or not, with the reason), else 'other'. */
  private async emitLeaf(base: Pick<IngestedEntry, 'path' | 'size' | 'sha256' | 'tempPath' | 'inUploadAt'>, header: DicomSummary | null, isInput = false) {
    await this.emit({ ...base, ...leafKind(header) }, isInput);
  }

  private async visitArchive(node: Node, kind: ArchiveKind): Promise<void> {
    const single = SINGLE_STREAM_KINDS.has(kind);
    if (node.depth >= this.limits.maxDepth) {
      if (node.top) throw new UploadFailure(`The upload is nested deeper than ${this.limits.maxDepth} archive levels.`);
      await this.skip(node.path, SKIP.depth, (await stat(node.file)).size);
      return;
    }
    this.work.openArchive();
    // Outer layers may have windows still to extract: they wait until this one is done, so the
    // byte budget this one is given is not granted to them at the same time.
    const outer = [...this.running];
    await Promise.all(outer.map((layer) => layer.pause()));
    try {
      await this.extractAndWalk(node, kind, single);
    } finally {
      for (const layer of outer) layer.resume();
    }
  }

  private async extractAndWalk(node: Node, kind: ArchiveKind, single: boolean): Promise<void> {
    this.sevenZip ??= new SevenZipWorker(this.input.signal);
    const outDir = path.join(this.root, `layer-${++this.layers}`);
    const result = await this.guardAbort(
      extractLayer({
        archive: node.file,
        kind,
        outDir,
        limits: this.limits,
        budget: this.budget,
        seeEntries: (n) => this.work.seeEntries(n),
        sevenZip: this.sevenZip,
        secondSevenZip: this.input.threads === 1 ? null : () => (this.secondSevenZip ??= new SevenZipWorker(this.input.signal)),
        // Only the upload itself is kept in storage: a nested archive's entries must be written out.
        inPlace: node.isInput && !single,
        window: this.input.window,
      }),
    );
    if (!result.ok) {
      await rm(outDir, { recursive: true, force: true });
      if (node.top) throw new UploadFailure(result.encrypted ? ENCRYPTED_MESSAGE : failureSentence(result.error));
      await this.skip(node.path, result.encrypted ? SKIP.encrypted : SKIP.corruptArchive, (await stat(node.file)).size);
      return;
    }
    const { layer } = result;
    this.running.push(layer);
    try {
      this.summary.countSkipped(SKIP.tooMany, layer.overflow);
      for await (const item of this.guardAbortIterable(layer.items)) {
        const itemPath = single ? decompressedName(node.path) : joinEntryPath(node.prefix, item.path);
        if (item.type === 'skipped') {
          await this.skip(single ? node.path : itemPath, item.reason, item.size);
          continue;
        }
        if (item.type === 'in-place') {
          const { analysis } = item;
          const base = { path: itemPath, size: analysis.size, sha256: item.sha256, tempPath: null, inUploadAt: item.at };
          // The analysis holds a header exactly when the bytes are DICOM.
          await this.emitLeaf(base, analysis.dicom);
          continue;
        }
        const base = { file: item.file, sha256: item.sha256, analysis: item.analysis, depth: node.depth + 1, isInput: false };
        const child: Node = single
          ? { ...base, path: itemPath, prefix: node.prefix, top: node.top, partial: layer.truncated() }
          : { ...base, path: itemPath, prefix: itemPath, top: false, partial: false };
        // A leaf's file was stored by the callback or removed by emit; a nested archive's is done with.
        if (await this.visit(child)) await rm(item.file, { force: true });
      }
      await this.guardAbort(layer.done);
      // Entries before the damage were kept; the damage itself is one skipped entry of the archive.
      if (layer.truncated() && !single) await this.skip(node.top ? this.input.originalName : node.path, SKIP.corruptArchive, null);
    } finally {
      await layer.done.catch(() => undefined);
      this.running = this.running.filter((l) => l !== layer);
      await rm(outDir, { recursive: true, force: true });
    }
  }

  private async *guardAbortIterable<T>(items: AsyncGenerator<T>): AsyncGenerator<T> {
    try {
      yield* items;
    } catch (error) {
      this.checkAborted();
      throw error;
    }
  }

  /** A terminated worker rejects with its own error; the caller should see why it was aborted. */
  private async guardAbort<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      this.checkAborted();
      throw error;
    }
  }
}

function failureSentence(detail: string): string {
  const meaning = detail.replace(SKIP.corruptArchive, '').trim().replace(/^\(|\)$/g, '');
  return `The archive could not be read: it is damaged or incomplete${meaning === '' ? '' : ` (${meaning})`}. Upload it again or re-create it.`;
}

/**
 * Processes one upload. Calls onEntry once per entry, in archive order, depth first, awaiting each
 * call; the same file always yields the same sequence, so a restarted job can skip what it already
 * recorded. Resolves 'failed' for content the owner must fix (wrong extension, encrypted, unreadable
 * archive); rejects on abort (with the signal's reason) and on I/O or callback errors (retryable).
 */
export async function ingestUpload(input: IngestInput, onEntry: OnEntry): Promise<IngestResult> {
  input.signal?.throwIfAborted();
  const limits = resolveLimits(input.limits);
  const root = await mkdtemp(path.join(input.workDir, 'upload-'));
  // Out of time: the walk is aborted like a cancelled job (7-Zip threads terminated at once), but
  // the upload ends failed with the reason rather than the job being cancelled.
  const clock = new AbortController();
  const timer = setTimeout(() => clock.abort(new WorkBudgetExceeded(budgetMessage('time', limits))), limits.maxProcessingMs);
  const signal = input.signal === undefined ? clock.signal : AbortSignal.any([input.signal, clock.signal]);
  const walk = new UploadWalk({ ...input, signal }, limits, root, onEntry);
  try {
    return await walk.run();
  } catch (error) {
    if (clock.signal.aborted && input.signal?.aborted !== true) return walk.failed((clock.signal.reason as Error).message);
    throw error;
  } finally {
    clearTimeout(timer);
    await walk.close();
    await rm(root, { recursive: true, force: true });
  }
}
