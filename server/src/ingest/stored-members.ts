// The files of a stored object that holds several (a delivery's tar bundle), described on the
// extraction worker instead of the job's thread: the native tar path (native-extract.ts) reads each
// member where it lies, its kind and DICOM header as it does for a stored tar upload's entries, while
// the job's thread records the members already described. Parsing 2,000 small headers on the job's
// own thread (with the garbage they leave) was most of a 2,000-file delivery's processing.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { isArchiveKind } from './detect/detect-kind.js';
import type { EntryAnalysis } from './entry-analysis.js';
import { SevenZipWorker } from './extract/sevenzip/sevenzip-client.js';
import type { NativeTarMember, SettledFile, WriteGuard } from './extract/sevenzip/sevenzip-protocol.js';
import { leafKind, type LeafKind } from './leaf-kind.js';

/** Where a file lies in its stored object. */
export interface StoredMember {
  offset: number;
  size: number;
}

/**
 * What a member is, by the same rules as a file stored alone (describeStoredFile). An archive is
 * not opened here: `copy` is a file of its bytes under the reader's folder, for the caller to open
 * as a nested archive and remove.
 */
export type DescribedMember = ({ archive: false } & LeafKind) | { archive: true; copy: string };

/**
 * Nothing is refused for its size: the members are files already accepted and stored, and only an
 * archive among them is copied out (as the job copied it before).
 */
const NO_GUARD: WriteGuard = { maxEntryBytes: null, expectedSizes: {}, budgetBytes: Number.MAX_SAFE_INTEGER, budgetReason: 'total' };

/** One worker for a job's objects; each object's members are described in the order given. */
export class StoredMembersReader {
  #worker: SevenZipWorker | null = null;
  #runs = 0;

  constructor(
    private readonly options: { outDir: () => Promise<string>; maxDicomHeaderBytes: number; signal: AbortSignal },
  ) {}

  /**
   * Queues the members of the object at `file` (a local copy the caller keeps until the answer's
   * `finished`). The worker takes objects one after another in the order they were queued.
   */
  async describe(file: string, members: readonly StoredMember[]): Promise<MemberDescriptions> {
    const outDir = path.join(await this.options.outDir(), `members-${(this.#runs += 1)}`);
    this.#worker ??= new SevenZipWorker(this.options.signal);
    // A member's name is its index: it only keys the answer, and names an archive's copy.
    const request = {
      archive: file,
      outDir,
      members: members.map((m, i): NativeTarMember => ({ rel: String(i), size: m.size, dataStart: m.offset })),
      guard: NO_GUARD,
      maxDicomHeaderBytes: this.options.maxDicomHeaderBytes,
      inPlace: true,
    };
    // The worker checks that what it writes stays inside this folder, which must exist for that.
    await mkdir(outDir, { recursive: true, mode: 0o700 });
    return new MemberDescriptions(members.length, outDir, (onSettled) => this.#worker!.extractNativeTar(request, onSettled));
  }

  async close(): Promise<void> {
    await this.#worker?.close();
    this.#worker = null;
  }
}

/** The descriptions of one object's members, taken in order as the worker settles them. */
export class MemberDescriptions {
  readonly #settled: (SettledFile | undefined)[];
  #next = 0;
  #wake: (() => void) | null = null;
  #ended = false;
  #failure: Error | null = null;
  /** Settles when the worker is done with the object: it may be released then. */
  readonly finished: Promise<void>;

  constructor(
    private readonly count: number,
    private readonly outDir: string,
    run: (onSettled: (file: SettledFile) => void) => Promise<{ crash: string | null }>,
  ) {
    this.#settled = new Array<SettledFile | undefined>(count);
    this.finished = run((file) => {
      this.#settled[Number(file.rel)] = file;
      this.#notify();
    }).then(
      (result) => {
        if (result.crash !== null) this.#failure = new Error(`reading a bundle's files failed: ${result.crash}`);
        this.#ended = true;
        this.#notify();
      },
      (error: unknown) => {
        this.#failure = error instanceof Error ? error : new Error(String(error));
        this.#ended = true;
        this.#notify();
      },
    );
  }

  /** The next member's description; throws when the object could not be read as stored. */
  async next(): Promise<DescribedMember> {
    if (this.#next >= this.count) throw new Error('every member was taken');
    for (;;) {
      const file = this.#settled[this.#next];
      if (file !== undefined) {
        this.#settled[this.#next] = undefined;
        this.#next += 1;
        return this.#describe(file);
      }
      if (this.#ended) throw this.#failure ?? new Error(`a bundle's file ${this.#next + 1} was not read`);
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  #describe(file: SettledFile): DescribedMember {
    // The bundle was checked whole when it arrived: a member that cannot be read now is a damaged
    // store, which the job's retry (and its failure in words) covers, not one entry of the delivery.
    const analysis: EntryAnalysis | null = file.failed ? null : file.analysis;
    if (analysis === null) throw new Error(`a bundle's file ${Number(file.rel) + 1} could not be read where it is stored`);
    if (isArchiveKind(analysis.kind)) {
      if (file.inPlaceAt !== null) throw new Error(`a bundle's file ${Number(file.rel) + 1} is an archive that was not copied out`);
      return { archive: true, copy: path.join(this.outDir, file.rel) };
    }
    return { archive: false, ...leafKind(analysis.kind === 'dicom' ? analysis.dicom : null) };
  }
}
