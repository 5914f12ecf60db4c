// The job behind every upload (DESIGN §7): extract, read DICOM headers, record each entry, and
// leave the upload 'ready' or 'failed'. Running it again after a crash records nothing twice.
import { mkdir } from 'node:fs/promises';
import type { JobRow } from '../db/schema.js';
import type { FilesRepository } from './files.repository.js';
import type { Storage } from '../storage/storage.js';
import type { EntriesRepository } from './entries.repository.js';
import { EntryRecorder } from './entry-recorder.js';
import type { ProcessingLimits } from '../ingest/limits.js';
import { processUpload } from '../ingest/ingest-upload.js';
import type { ProcessedEntry } from '../ingest/ingest-types.js';

export class JobCancelled extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'JobCancelled';
  }
}

export interface ProcessUploadDeps {
  files: FilesRepository;
  entries: EntriesRepository;
  storage: Storage;
  /** Scratch space on the same filesystem as storage, so kept entries are renamed, not copied. */
  workDir: string;
  limits: Partial<ProcessingLimits>;
}

/** Entry objects have keys fixed by their place in the upload, so a rerun writes the same keys. */
export function entryKey(fileId: number, seq: number): string {
  return `entries/${fileId}/${seq}`;
}

/**
 * How many entries an earlier run of this job recorded, so this run skips them. Their objects
 * were not yet flushed if that run died with its machine: should any be missing or short, the
 * upload is processed again from the start.
 */
async function resumePoint(deps: ProcessUploadDeps, fileId: number): Promise<number> {
  const recorded = await deps.entries.recordedCount(fileId);
  if (recorded === 0) return 0;
  for (const object of await deps.entries.storedObjects(fileId)) {
    const stat = await deps.storage.stat(object.storage_key);
    // An entry read in place is a range of the upload: the upload must still reach its end.
    const intact = object.offset === null ? stat?.size === object.size : stat !== null && stat.size >= object.offset + object.size;
    if (!intact) {
      await deps.entries.deleteForFile(fileId);
      return 0;
    }
  }
  return recorded;
}

export async function runProcessUpload(deps: ProcessUploadDeps, job: JobRow, signal: AbortSignal): Promise<void> {
  const file = await deps.files.findForProcessing(job.file_id);
  if (!file || file.deleted_at !== null || file.project_deleted_at !== null) {
    throw new JobCancelled('the file was deleted');
  }
  await deps.files.setProcessing(file.id, { status: 'processing' });
  const alreadyRecorded = await resumePoint(deps, file.id);
  await mkdir(deps.workDir, { recursive: true });
  const local = await deps.storage.openLocal(file.storage_key);
  const recorder = new EntryRecorder(deps.entries, deps.storage);
  let seq = 0;
  try {
    const onEntry = async (entry: ProcessedEntry): Promise<'moved' | undefined> => {
      seq += 1;
      if (seq <= alreadyRecorded) return undefined;
      let storageKey: string | null = null;
      if (entry.inUploadAt !== null) {
        // Bytes of the upload itself, from this offset: nothing to store.
        storageKey = file.storage_key;
      } else if (entry.tempPath !== null) {
        if (entry.inputIsEntry) {
          storageKey = file.storage_key;
        } else {
          storageKey = entryKey(file.id, seq);
          await recorder.store(storageKey, entry.tempPath, entry.size);
        }
      }
      await recorder.record({
        file_id: file.id,
        company_id: file.company_id,
        seq,
        path: entry.path,
        size: entry.size,
        sha256: entry.sha256,
        kind: entry.kind,
        reason: entry.reason,
        storage_key: storageKey,
        storage_offset: entry.inUploadAt,
        ...(entry.dicom ?? {}),
      });
      return entry.tempPath !== null && !entry.inputIsEntry ? 'moved' : undefined;
    };
    const result = await processUpload(
      { inputPath: local.path, originalName: file.file, workDir: deps.workDir, limits: deps.limits, signal },
      onEntry,
    );
    // Entries were written without a sync each; the last flush makes them all durable before 'ready'.
    await recorder.finish();
    await deps.files.setProcessing(file.id, result);
  } finally {
    await local.release();
  }
}
