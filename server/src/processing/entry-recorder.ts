// Stores extracted entries and records their rows in bulk: rows in one transaction per batch, and
// the storage flushed in the background as bytes accumulate, so the flush the job waits for before
// 'ready' has little left to write. A job that stored nothing (a single DICOM file, a delivery of
// DICOM files: their bytes were made durable as they arrived) flushes nothing.
import type { TDicomFields } from '@portal/contract';
import type { Db } from '../db/database.js';
import type { NewFileEntry } from '../db/schema.js';
import type { IngestedEntry } from '../ingest/index.js';
import { ObjectExistsError } from '../storage/storage-errors.js';
import type { Storage } from '../storage/storage.js';
import { removeDisguisingCharactersFromPath, type EntriesRepository } from '../files/index.js';

const ROWS_PER_BATCH = 50;

/** The DICOM fields as columns: a NumberOfFrames that is not an integer keeps its text apart. */
function dicomColumns(fields: TDicomFields): Partial<NewFileEntry> {
  const frames = fields.number_of_frames;
  return {
    ...fields,
    number_of_frames: typeof frames === 'number' ? frames : null,
    number_of_frames_text: typeof frames === 'string' ? frames : null,
  };
}
const FLUSH_EVERY_BYTES = 256 * 1024 ** 2;

export class EntryRecorder {
  private rows: NewFileEntry[] = [];
  private unflushedBytes = 0;
  private flushing: Promise<void> | null = null;
  private flushError: Error | null = null;
  private mustFlush = false;

  constructor(
    private readonly entries: EntriesRepository,
    private readonly storage: Storage,
  ) {}

  /** An earlier run of the job recorded entries whose objects it may not have flushed: finish() flushes them. */
  inheritUnflushed(): void {
    this.mustFlush = true;
  }

  /** Moves an extracted file into storage under its entry key (not yet durable). */
  async store(key: string, tempPath: string, size: number): Promise<void> {
    this.mustFlush = true;
    try {
      await this.storage.putFile(key, tempPath, { durable: false });
    } catch (err) {
      if (!(err instanceof ObjectExistsError)) throw err;
      // A crash between storing and recording left the object without its row: replace it.
      await this.storage.delete(key);
      await this.storage.putFile(key, tempPath, { durable: false });
    }
    this.unflushedBytes += size;
    if (this.unflushedBytes >= FLUSH_EVERY_BYTES && this.flushing === null) this.flushInBackground();
  }

  /** `store` for bytes in memory (a de-identified copy): not yet durable either. */
  async storeBytes(key: string, bytes: Uint8Array): Promise<void> {
    this.mustFlush = true;
    try {
      await this.storage.putBytes(key, bytes, { durable: false });
    } catch (err) {
      if (!(err instanceof ObjectExistsError)) throw err;
      await this.storage.delete(key);
      await this.storage.putBytes(key, bytes, { durable: false });
    }
    this.unflushedBytes += bytes.length;
    if (this.unflushedBytes >= FLUSH_EVERY_BYTES && this.flushing === null) this.flushInBackground();
  }

  /** Rows are written in order, after the objects they point to were stored. */
  async record(row: NewFileEntry): Promise<void> {
    this.rows.push(row);
    if (this.rows.length >= ROWS_PER_BATCH) await this.writeRows();
  }

  /**
   * Records what processing found at `seq` of a file row (an upload's or a delivery's): the entry's
   * facts and DICOM fields, and where its bytes are (an object, or a range of another object).
   */
  recordEntry(
    file: { id: number; company_id: number },
    seq: number,
    entry: Pick<IngestedEntry, 'path' | 'size' | 'sha256' | 'kind' | 'reason' | 'dicom'>,
    where: { storageKey: string | null; offset: number | null; scan?: { status: string; signature: string | null } | null },
  ): Promise<void> {
    return this.record({
      file_id: file.id,
      company_id: file.company_id,
      seq,
      // An archive's names are its author's: shown to people, they must not disguise themselves.
      path: removeDisguisingCharactersFromPath(entry.path),
      size: entry.size,
      sha256: entry.sha256,
      kind: entry.kind,
      reason: entry.reason,
      storage_key: where.storageKey,
      storage_offset: where.offset,
      scan_status: where.scan?.status ?? null,
      scan_signature: where.scan?.signature ?? null,
      ...(entry.dicom === null ? {} : dicomColumns(entry.dicom)),
    });
  }

  /** Writes the last rows and makes every stored entry durable. */
  async finish(): Promise<void> {
    await this.flushObjects();
    await this.writeRows();
  }

  /**
   * Makes every stored entry durable, leaving the rows not yet written for `writeRows`, which
   * the job runs in the transaction that also marks the upload and its job finished.
   */
  async flushObjects(): Promise<void> {
    await this.flushing;
    if (this.flushError !== null) throw this.flushError;
    if (this.mustFlush) await this.storage.flush();
  }

  /** The rows not yet written, in the caller's transaction (after flushObjects), or in their own. */
  async writeRows(trx?: Db): Promise<void> {
    const rows = this.rows;
    this.rows = [];
    await this.entries.insertMany(rows, trx);
  }

  private flushInBackground(): void {
    this.unflushedBytes = 0;
    this.flushing = this.storage
      .flush()
      .catch((err: unknown) => {
        this.flushError ??= err instanceof Error ? err : new Error(String(err));
      })
      .finally(() => {
        this.flushing = null;
      });
  }
}
