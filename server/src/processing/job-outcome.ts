// What the two processing jobs (an upload's, a delivery's) share: the repository calls they make on
// the file row, the keys of the objects they store per entry, and how a job that gives up ends.
import type { TProcessingStatus, TProcessingSummary, TScanStatus } from '@portal/contract';
import type { Db } from '../db/database.js';
import type { ProjectFileRow } from '../db/schema.js';
import type { Announcer } from '../events/events.js';
import type { EntriesRepository, FileEvents } from '../files/index.js';
import type { IngestSummary } from '../ingest/index.js';
import type { JobContext } from '../jobs/index.js';
import type { Storage } from '../storage/storage.js';
import type { EntryRecorder } from './entry-recorder.js';
import { activePolicy, type ProjectPolicies } from './server-deidentification.js';
import { SCANNER_GAVE_UP, type ScanSession } from './virus-scan.js';

/** What the jobs need of the files repository. */
export interface UploadsToProcess {
  findForProcessing(id: number): Promise<(ProjectFileRow & { project_deleted_at: string | null }) | undefined>;
  setProcessing(id: number, state: { status: TProcessingStatus; error?: string | null; summary?: TProcessingSummary | null }, db?: Db): Promise<void>;
  replaceObject(id: number, object: { storageKey: string; size: number; sha256: string }, outcome: string): Promise<void>;
  setDeidOutcome(id: number, outcome: string, db?: Db): Promise<void>;
  setScan(id: number, scan: { status: TScanStatus; signature: string | null }, db?: Db): Promise<void>;
}

/** Entry objects have keys fixed by their place in the upload, so a rerun writes the same keys. */
export function entryKey(fileId: number, seq: number): string {
  return `entries/${fileId}/${seq}`;
}

/** What the owner reads when the server, not the file, kept failing. */
export function givenUpMessage(attempts: number): string {
  return (
    `Processing failed after ${attempts} attempts because of a problem on the server, not in the file. ` +
    'The file is stored: delete it and upload it again later, or ask your administrator to look at the server log.'
  );
}

/** The same in a project that removes patient identity: what arrived is not kept (issue 33). */
export function givenUpDeletedMessage(attempts: number): string {
  return (
    `Processing failed after ${attempts} attempts because of a problem on the server, not in the file. ` +
    'What was sent was deleted from the server, as it may carry patient identity: send it again later, or ask your administrator to look at the server log.'
  );
}

/**
 * A job gave up (attempts exhausted, or a permanent failure). In a project that removes patient
 * identity the identified objects it was given are deleted first (`deleteIdentified`, from the row),
 * then the row fails with the reason in words; elsewhere the file is kept for the owner to decide.
 */
export async function giveUp(
  deps: { files: UploadsToProcess; policies?: ProjectPolicies; events?: Announcer<FileEvents> },
  fileId: number,
  attempts: number,
  deleteIdentified: (file: NonNullable<Awaited<ReturnType<UploadsToProcess['findForProcessing']>>>) => Promise<void>,
): Promise<void> {
  const file = await deps.files.findForProcessing(fileId);
  const deidentifying = file !== undefined && (await activePolicy(deps.policies, file.project_id)) !== null;
  if (file && deidentifying) await deleteIdentified(file);
  // A scanner still down at the last attempt: the file was not scanned, and says so, not 'waiting'.
  // Written before the status, so that no reader sees the row failed and still waiting for its scan.
  if (file?.scan_status === 'waiting') await deps.files.setScan(fileId, { status: 'not_scanned', signature: SCANNER_GAVE_UP });
  await deps.files.setProcessing(fileId, { status: 'failed', error: deidentifying ? givenUpDeletedMessage(attempts) : givenUpMessage(attempts) });
  if (file) await deps.events?.emit('file.failed', fileId, file.company_id);
}

/** How a job ends for its row: 'ready' with its summary, or 'failed' with the reason in words. */
export interface JobEnd {
  status: 'ready' | 'failed';
  error: string | null;
  summary: IngestSummary | null;
}

/**
 * The one place where a job writes its outcome: the last rows, the de-identification outcome, the
 * instances elsewhere in the project, the status; then 'file.processed' is announced for a ready one. The entries' objects are made durable first.
 * Given `complete` (the job's end), all of it is one transaction with the job's end: a crash leaves
 * all of it or none. Without (a de-identifying job deletes what arrived after it, and must run again
 * should it die before; or run outside a job runner, the ingest benchmark), the writes go one by one.
 */
export async function writeOutcome(
  deps: { files: UploadsToProcess; entries: Pick<EntriesRepository, 'countInstancesElsewhere'>; events?: Announcer<FileEvents> },
  file: Pick<ProjectFileRow, 'id' | 'project_id' | 'company_id' | 'file' | 'scan_status'>,
  recorder: EntryRecorder,
  end: { state: JobEnd; deidOutcome: string | null; scan?: ScanSession },
  complete?: JobContext['complete'],
): Promise<void> {
  await recorder.flushObjects();
  const { state, deidOutcome, scan } = end;
  const finish = async (trx?: Db) => {
    await recorder.writeRows(trx);
    // The file's scan state is read from its entries' rows, all written by now (issue 37).
    const infected = await scan?.finish(trx, file);
    if (infected !== undefined && state.summary) state.summary.infected = infected;
    if (deidOutcome !== null) await deps.files.setDeidOutcome(file.id, deidOutcome, trx);
    if (state.status === 'ready' && state.summary) state.summary.in_project = await deps.entries.countInstancesElsewhere(file.id, file.project_id, trx);
    await deps.files.setProcessing(file.id, state, trx);
  };
  await (complete ? complete(finish) : finish());
  // Once committed: what follows a processed file (its thumbnails) is queued by the reaction (services.ts).
  if (state.status === 'ready') await deps.events?.emit('file.processed', file.id, file.company_id);
  else await deps.events?.emit('file.failed', file.id, file.company_id);
}

/**
 * The crash rule of both jobs: a rerun resumes. How many entries an earlier run of the job
 * recorded, so this run skips them. Their objects
 * were not yet flushed if that run died with its machine: should any be missing or short, the
 * upload is processed again from the start.
 */
export async function resumePoint(deps: { entries: Pick<EntriesRepository, 'recordedCount' | 'storedObjects' | 'deleteForFile'>; storage: Pick<Storage, 'stat'> }, fileId: number): Promise<number> {
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
