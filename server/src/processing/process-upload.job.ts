// The job behind every upload (DESIGN §7): extract, read DICOM headers, record each entry, and
// leave the upload 'ready' or 'failed'. Running it again after a crash records nothing twice.
import { readFile } from 'node:fs/promises';
import type { ProjectFileRow } from '../db/schema.js';
import {
  describeStoredFile,
  ingestUpload,
  resolveLimits,
  SummaryBuilder,
  type IngestedEntry,
  type IngestLimits,
  type IngestResult,
  type OnEntry,
  type StoredFileKind,
} from '../ingest/index.js';
import { defineJobKind, JobCancelled, type JobContext, type JobKind } from '../jobs/index.js';
import { ObjectExistsError } from '../storage/storage-errors.js';
import type { Storage } from '../storage/storage.js';
import { PROCESS_UPLOAD, type EntriesRepository, type FileEvents, type TProcessUploadPayload } from '../files/index.js';
import type { Announcer } from '../events/events.js';
import { EntryRecorder } from './entry-recorder.js';
import { entryKey, giveUp, resumePoint, writeOutcome, type JobEnd, type UploadsToProcess } from './job-outcome.js';
import { deidentifyEntry, entryBytes } from './deidentify-entry.js';
import { bytesOf, ScanSession, type InfectionAudit, type ScanState } from './virus-scan.js';
import type { VirusScanner } from '../scanning/index.js';
import { activePolicy, checkInstance, OutcomeBuilder, type ActivePolicy, type ProjectPolicies } from './server-deidentification.js';

// Existing importers (tests, the benchmark) name them here.
export { entryKey, givenUpMessage, type UploadsToProcess } from './job-outcome.js';

export interface ProcessUploadDeps {
  files: UploadsToProcess;
  entries: EntriesRepository;
  storage: Storage;
  /** Scratch space on the same filesystem as storage, so kept entries are renamed, not copied. */
  limits: Partial<IngestLimits>;
  /** The projects' de-identification policies and keys; without it (the ingest benchmark) nothing is de-identified. */
  policies?: ProjectPolicies;
  /** Where 'file.processed' is announced once the file is 'ready' (services.ts); none in the ingest benchmark. */
  events?: Announcer<FileEvents>;
  /** clamd (CLAMD_SOCKET or CLAMD_HOST); without it nothing is scanned and files say 'not scanned'. */
  scanner?: VirusScanner | undefined;
  /** Where an infected file is audited. */
  audit?: InfectionAudit | undefined;
}

export async function processUpload(
  deps: ProcessUploadDeps,
  payload: TProcessUploadPayload,
  { signal, workDir, attempt, complete }: Pick<JobContext, 'signal' | 'workDir' | 'attempt'> & Partial<Pick<JobContext, 'complete'>>,
): Promise<void> {
  const { fileId } = payload;
  const found = await deps.files.findForProcessing(fileId);
  if (!found || found.deleted_at !== null || found.project_deleted_at !== null) {
    throw new JobCancelled('the file was deleted');
  }
  const active = await activePolicy(deps.policies, found.project_id);
  if (active && found.kind !== 'dicom') return deidentifyArchive(deps, found, active, { signal, workDir, attempt });
  const scan = await ScanSession.begin(deps, found.id);
  // In such a project the upload as sent is scanned, before its de-identified copy replaces it.
  let whole = active ? await scanStored(deps.storage, scan, found.storage_key) : null;
  // Such a project's uploads carry no header in their payload (uploads.service.ts); one queued
  // before its policy changed is read again from the file the server de-identified.
  const described = active ? undefined : payload.described;
  let deidOutcome: string | null = null;
  let current = found;
  if (active) {
    const checked = await deidentifyUpload(deps, found, active);
    if (checked === null) {
      // Refused and deleted: what its scan found still stands on the row.
      await scan.finish(undefined, found);
      return;
    }
    ({ file: current, outcome: deidOutcome } = checked);
  }
  const file = current;
  // A single DICOM file is indexed in one short step: saying 'processing' first (one more write of
  // the row and its indexes) would be seen by no one, unless an earlier attempt failed.
  if (file.kind !== 'dicom' || attempt > 1) await deps.files.setProcessing(file.id, { status: 'processing' });
  // Only a run of this job records its entries: a first attempt finds none.
  const alreadyRecorded = attempt > 1 ? await resumePoint(deps, file.id) : 0;
  // Found even when described on arrival (then only its presence is checked, it is not read): an
  // object gone from storage fails the job rather than leaving a 'ready' upload without its bytes.
  const local = await deps.storage.openLocal(file.storage_key);
  const recorder = new EntryRecorder(deps.entries, deps.storage);
  if (!active) {
    try {
      whole = await scan.object(bytesOf(local.path));
    } catch (err) {
      await local.release();
      throw err;
    }
  }
  // That run may have died before its flush; this one then flushes even if it stores nothing.
  if (alreadyRecorded > 0) recorder.inheritUnflushed();
  let seq = 0;
  try {
    const onEntry = async (entry: IngestedEntry): Promise<'moved' | undefined> => {
      seq += 1;
      if (seq <= alreadyRecorded) return undefined;
      // Before its bytes move into storage: the upload itself has its verdict already.
      let scanned: ScanState | null = null;
      if (entry.inputIsEntry) scanned = whole;
      else if (entry.inUploadAt !== null) scanned = await scan.entry(bytesOf(local.path, entry.inUploadAt, entry.size));
      else if (entry.tempPath !== null) scanned = await scan.entry(bytesOf(entry.tempPath));
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
      await recorder.recordEntry(file, seq, entry, { storageKey, offset: entry.inUploadAt, scan: scanned });
      return entry.tempPath !== null && !entry.inputIsEntry ? 'moved' : undefined;
    };
    let result: IngestResult | null = null;
    if (file.kind === 'dicom') {
      // Described on arrival (a small upload read whole), or now from its first bytes and header.
      const kindOf = described ? { archive: false as const, ...described } : await describeStoredFile(local.path, resolveLimits(deps.limits).maxDicomHeaderBytes);
      result = await indexDescribedDicom(file, kindOf, local.path, onEntry);
    }
    result ??= await ingestUpload({ inputPath: local.path, originalName: file.file, workDir: await workDir(), limits: deps.limits, signal }, onEntry);
    // The last rows, the outcome and the job's end in one transaction (for a single DICOM file its
    // only row): one write instead of three, and a crash leaves all of them or none.
    await writeOutcome(deps, file, recorder, { state: result, deidOutcome, scan }, complete);
  } finally {
    await local.release();
  }
}

type FileToProcess = NonNullable<Awaited<ReturnType<UploadsToProcess['findForProcessing']>>>;

const DEIDENTIFIED_SUFFIX = '-deidentified';

/**
 * The key of an upload's de-identified copy: fixed, so a rerun after a crash writes the same one,
 * and derived from the original's, so a rerun that finds the copy named by the row still knows
 * which original to delete.
 */
export function deidentifiedKey(originalKey: string): string {
  return `${originalKey}${DEIDENTIFIED_SUFFIX}`;
}

/**
 * In a project that removes patient identity: an upload already de-identified with its policy and
 * key is kept as it is; one that still carries identity is replaced by its de-identified copy (made
 * durable, named by the row, and only then the original deleted); a file the engine cannot read is
 * not kept: its bytes are deleted and the row fails with the reason. Null when the upload was
 * refused (the job is over). An archive goes to deidentifyArchive instead.
 */
async function deidentifyUpload(deps: ProcessUploadDeps, file: FileToProcess, active: ActivePolicy): Promise<{ file: FileToProcess; outcome: string } | null> {
  const refuse = async (reason: string) => {
    await deps.storage.delete(file.storage_key);
    await deps.files.setProcessing(file.id, { status: 'failed', error: reason, summary: null });
    await deps.events?.emit('file.failed', file.id, file.company_id);
    return null;
  };
  const local = await deps.storage.openLocal(file.storage_key);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(local.path);
  } finally {
    await local.release();
  }
  const checked = checkInstance(bytes, active);
  if (checked.outcome === 'refused') return refuse(checked.reason);
  const outcome = new OutcomeBuilder(active);
  outcome.add(file.file, checked);
  if (checked.outcome === 'kept') {
    // A rerun finds the server's own copy already named by the row: what the first run found
    // stands, and the original is deleted again (that run may have died before it was).
    if (file.storage_key.endsWith(DEIDENTIFIED_SUFFIX)) await deps.storage.delete(file.storage_key.slice(0, -DEIDENTIFIED_SUFFIX.length));
    return { file, outcome: file.deid_outcome ?? outcome.json() };
  }
  const key = deidentifiedKey(file.storage_key);
  try {
    await deps.storage.putBytes(key, checked.bytes);
  } catch (err) {
    if (!(err instanceof ObjectExistsError)) throw err;
    // A run that died before naming its copy in the row: that copy is written again.
    await deps.storage.delete(key);
    await deps.storage.putBytes(key, checked.bytes);
  }
  const json = outcome.json();
  await deps.files.replaceObject(file.id, { storageKey: key, size: checked.bytes.length, sha256: checked.sha256 }, json);
  await deps.storage.delete(file.storage_key);
  return { file: { ...file, storage_key: key, filesize: checked.bytes.length, sha256: checked.sha256, deid_outcome: json }, outcome: json };
}

/** Said after an archive's own failure in such a project: its bytes, identified, are not kept. */
const ARCHIVE_DELETED = 'The archive was deleted from the server, as it may carry patient identity: repair it and send it again.';

/**
 * An archive uploaded whole into a project that removes patient identity: opened as any archive is,
 * each DICOM entry checked and stored de-identified as the entry's own object, anything else left
 * out with the reason. The summary counts the entries as recorded (de-identified). Once the row is
 * 'ready' the archive as it arrived is deleted; the row then downloads its kept entries as a zip
 * (files/download-target.ts). Its writes are not the job's last transaction: a crash after 'ready'
 * runs the job again, which then only deletes the archive; a crash before resumes (entry keys
 * are fixed by place and the engine's output is deterministic, so the result is the same).
 */
async function deidentifyArchive(
  deps: ProcessUploadDeps,
  file: FileToProcess,
  active: ActivePolicy,
  { signal, workDir, attempt }: Pick<JobContext, 'signal' | 'workDir' | 'attempt'>,
): Promise<void> {
  // Its outcome is written just before its end: a row so finished only has its archive to delete.
  if (file.deid_outcome !== null && (file.processing_status === 'ready' || file.processing_status === 'failed')) {
    await deps.storage.delete(file.storage_key);
    return;
  }
  await deps.files.setProcessing(file.id, { status: 'processing' });
  // The archive as sent is scanned whole (clamd opens archives); the de-identified entries kept from it are not scanned again.
  const scan = await ScanSession.begin(deps, file.id);
  // (the summary and the outcome count them all), one already recorded is not recorded again.
  const alreadyRecorded = attempt > 1 ? await resumePoint(deps, file.id) : 0;
  const limits = resolveLimits(deps.limits);
  const recorder = new EntryRecorder(deps.entries, deps.storage);
  if (alreadyRecorded > 0) recorder.inheritUnflushed();
  const outcome = new OutcomeBuilder(active);
  const summary = new SummaryBuilder();
  const into = { active, outcome, recorder, maxDicomHeaderBytes: limits.maxDicomHeaderBytes };
  const local = await deps.storage.openLocal(file.storage_key);
  let seq = 0;
  let result: IngestResult;
  try {
    await scan.object(bytesOf(local.path));
    result = await ingestUpload({ inputPath: local.path, originalName: file.file, workDir: await workDir(), limits: deps.limits, signal }, async (entry) => {
      seq += 1;
      const kept = await deidentifyEntry(entry, () => entryBytes(local.path, entry), entryKey(file.id, seq), into);
      summary.add(kept.entry);
      if (seq > alreadyRecorded) await recorder.recordEntry(file, seq, kept.entry, { storageKey: kept.storageKey, offset: null });
      return undefined;
    });
  } finally {
    await local.release();
  }
  // Built from the entries as recorded; entries beyond the limits, only counted by the walk, are not in it.
  const state: JobEnd =
    result.status === 'ready'
      ? { status: 'ready', error: null, summary: summary.build() }
      : { status: 'failed', error: `${result.error ?? ''} ${ARCHIVE_DELETED}`.trim(), summary: null };
  // Not in the job's last transaction: the archive is deleted after it (see above).
  await writeOutcome(deps, file, recorder, { state, deidOutcome: outcome.json(), scan });
  await deps.storage.delete(file.storage_key);
}

/**
 * A single DICOM file is its own only entry, as the archive walk would find it (the same rules:
 * describeStoredFile, or describeStoredBytes on arrival), without its scratch folder and timers:
 * its header is read once, and its SHA-256 is the one computed as it arrived. Null in the case
 * that cannot arise for a file accepted as DICOM (its content reads as an archive): the walk then
 * decides.
 */
async function indexDescribedDicom(file: ProjectFileRow, described: StoredFileKind, localPath: string, onEntry: OnEntry): Promise<IngestResult | null> {
  if (described.archive) return null;
  const { kind, reason, dicom } = described;
  const entry: IngestedEntry = { path: file.file, size: Number(file.filesize), sha256: file.sha256, kind, reason, dicom, tempPath: localPath, inUploadAt: null, inputIsEntry: true };
  const summary = new SummaryBuilder();
  summary.add(entry);
  await onEntry(entry);
  return { status: 'ready', error: null, summary: summary.build() };
}

/** A stored object scanned whole; null without a scanner (nothing is then read). */
async function scanStored(storage: Storage, scan: ScanSession, key: string): Promise<ScanState | null> {
  if (!scan.enabled) return null;
  const local = await storage.openLocal(key);
  try {
    return await scan.object(bytesOf(local.path));
  } finally {
    await local.release();
  }
}

/** Attempts, backoff and concurrency are the runner's defaults (JOB_MAX_ATTEMPTS and the rest). */
export function processUploadJob(deps: ProcessUploadDeps): JobKind<TProcessUploadPayload> {
  return defineJobKind(PROCESS_UPLOAD, {
    handle: (payload, context) => processUpload(deps, payload, context),
    // The cause (a storage or database error) is in the runner's log; its text names internals.
    // In a de-identifying project the upload as it arrived (or its copy) is not kept (issue 33).
    onGiveUp: ({ fileId }, { attempts }) =>
      giveUp(deps, fileId, attempts, async (file) => {
        await deps.storage.delete(file.storage_key);
        if (file.storage_key.endsWith(DEIDENTIFIED_SUFFIX)) await deps.storage.delete(file.storage_key.slice(0, -DEIDENTIFIED_SUFFIX.length));
      }),
  });
}
