// The one job of a completed delivery (DESIGN §10): the delivery is read as an archive whose
// members are already stored one by one. Each file is read once: a DICOM file is indexed from its
// stored object (its SHA-256 is the one computed while it arrived), an archive is opened as a nested
// archive is, anything else is kept as 'other'. Entries are recorded in batches and made durable
// with one flush at the end; one summary covers the whole delivery. Files that arrived in a bundle
// are read in place: each bundle's object is opened once and read a window of 1 MiB at a time, and
// each file's head and DICOM header are taken from it at its offset.
import { createReadStream, createWriteStream } from 'node:fs';
import { open, readFile, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { DeliveryFileRow } from '../db/schema.js';
import {
  describeStoredFile,
  describeStoredMember,
  MEMBER_FIRST_READ,
  ingestUpload,
  resolveLimits,
  SummaryBuilder,
  type IngestLimits,
  type StoredFileKind,
} from '../ingest/index.js';
import type { LocalCopy, Storage } from '../storage/storage.js';
import { defineJobKind, JobCancelled, type JobContext, type JobKind } from '../jobs/index.js';
import { PROCESS_DELIVERY, type EntriesRepository, type FileEvents, type TProcessDeliveryPayload } from '../files/index.js';
import type { Announcer } from '../events/events.js';
import { EntryRecorder } from './entry-recorder.js';
import { entryKey, giveUp, resumePoint, writeOutcome, type UploadsToProcess } from './job-outcome.js';
import { deidentifyEntry, entryBytes, leftOut, notDicomReason, storeChecked, type EntryFacts } from './deidentify-entry.js';
import { activePolicy, checkInstance, OutcomeBuilder, type ProjectPolicies } from './server-deidentification.js';
import { judgeBundle } from './deidentified-bundles.js';
import type { DeidReport } from '@portal/deid';
import { bytesOf, ScanSession, type InfectionAudit, type ScanState } from './virus-scan.js';
import type { VirusScanner } from '../scanning/index.js';

export interface ProcessDeliveryDeps {
  files: UploadsToProcess;
  members: { membersOfFile(fileId: number): Promise<DeliveryFileRow[]>; forgetObjects(fileId: number, keys: readonly string[]): Promise<void> };
  entries: EntriesRepository;
  storage: Storage;
  limits: Partial<IngestLimits>;
  /** The projects' de-identification policies and keys; without it nothing is de-identified. */
  policies?: ProjectPolicies;
  /** Where 'file.processed' is announced once the file is 'ready' (services.ts); none in the ingest benchmark. */
  events?: Announcer<FileEvents>;
  /** clamd (CLAMD_SOCKET or CLAMD_HOST); without it nothing is scanned and files say 'not scanned'. */
  scanner?: VirusScanner | undefined;
  /** Where an infected delivery is audited. */
  audit?: InfectionAudit | undefined;
}

type Leaf = Exclude<StoredFileKind, { archive: true }>;

export async function processDelivery(
  deps: ProcessDeliveryDeps,
  { fileId }: TProcessDeliveryPayload,
  { signal, workDir, attempt = 1, complete }: Pick<JobContext, 'signal' | 'workDir'> & Partial<Pick<JobContext, 'attempt' | 'complete'>>,
): Promise<void> {
  const file = await deps.files.findForProcessing(fileId);
  if (!file || file.deleted_at !== null || file.project_deleted_at !== null) throw new JobCancelled('the delivery was deleted');
  // A run that died after 'ready' in a de-identifying project may have deleted some of the files as
  // they arrived, not yet their rows: what is left of that deletion is all there is to do (issue 33).
  if (file.processing_status === 'ready' && file.deid_outcome !== null) {
    const kept = new Set((await deps.entries.storedObjects(file.id)).map((o) => o.storage_key));
    return forgetIdentified(deps, file.id, kept);
  }
  await deps.files.setProcessing(file.id, { status: 'processing' });
  // Each file as it arrived is scanned whole, and each entry an archive among them holds (issue 37).
  const scan = await ScanSession.begin(deps, file.id);
  // A rerun resumes, as the upload job's does: the files are read again (the summary and the
  // de-identification outcome count them all) and the entries already recorded are not recorded again.
  const alreadyRecorded = attempt > 1 ? await resumePoint(deps, file.id) : 0;
  const limits = resolveLimits(deps.limits);
  const recorder = new EntryRecorder(deps.entries, deps.storage);
  if (alreadyRecorded > 0) recorder.inheritUnflushed();
  const summary = new SummaryBuilder();
  const window = new BundleWindow();
  let seq = 0;
  // In a project that removes patient identity (issue 33): every DICOM instance is checked and kept
  // only de-identified, in an object of its own unless what arrived holds no identity (a file sent
  // alone, or a bundle, all of it de-identified by the browser); nothing else is kept. The other
  // objects that arrived are deleted once the row is ready: by then every kept copy is durable.
  const active = await activePolicy(deps.policies, file.project_id);
  const outcome = active && new OutcomeBuilder(active);
  const identified = new Set<string>();
  // Bundles whose every file the browser de-identified stay, their files read in place (judgeBundle).
  const judged = new Map<string, Map<number, DeidReport> | null>();

  const into = active && outcome ? { active, outcome, recorder, maxDicomHeaderBytes: limits.maxDicomHeaderBytes } : null;

  const record = async (entry: EntryFacts, storageKey: string | null, offset: number | null, scanned: ScanState | null = null) => {
    seq += 1;
    summary.add(entry);
    if (seq > alreadyRecorded) await recorder.recordEntry(file, seq, entry, { storageKey, offset, scan: scanned });
  };

  const members = await deps.members.membersOfFile(file.id);
  const bundles = new OpenBundles(deps.storage, members);
  try {
    for (const member of members) {
      signal.throwIfAborted();
      if (member.storage_offset !== null) {
        const bundle = await bundles.open(member.storage_key);
        if (into && !judged.has(member.storage_key)) {
          const inBundle = members.filter((m) => m.storage_key === member.storage_key && m.storage_offset !== null);
          const read = (m: DeliveryFileRow) => window.read(m.storage_key, bundle.handle, Number(m.storage_offset), Number(m.size));
          judged.set(member.storage_key, await judgeBundle(inBundle, read, into.active));
        }
        const scanned = await scan.object(bytesOf(bundle.path, Number(member.storage_offset), Number(member.size)));
        await describeBundled(member, bundle, scanned);
        await bundles.done(member.storage_key);
        continue;
      }
      const local = await deps.storage.openLocal(member.storage_key);
      try {
        const scanned = await scan.object(bytesOf(local.path));
        const described = await describeStoredFile(local.path, limits.maxDicomHeaderBytes);
        if (!described.archive) {
          await recordLeaf(member, described, null, () => readFile(local.path), scanned);
          continue;
        }
        await openArchiveMember(member, local.path, 0);
      } finally {
        await local.release();
      }
    }
  } finally {
    await bundles.closeAll();
  }
  // In a de-identifying project the files as they arrived are deleted after the outcome, so the job
  // ends after that (a rerun of a row so finished only deletes them); elsewhere with the outcome.
  const state = { status: 'ready' as const, error: null, summary: summary.build() };
  await writeOutcome(deps, file, recorder, { state, deidOutcome: outcome ? outcome.json() : null, scan }, into ? undefined : complete);
  // Not before: a rerun (the job dying before 'ready') reads the files as they arrived again. The
  // objects go first, then their rows: a crash between leaves rows naming nothing, never identity unnamed.
  await dropObjects(deps, file.id, [...identified]);

  async function recordLeaf(member: DeliveryFileRow, described: Leaf, offset: number | null, readBytes: () => Promise<Uint8Array>, scanned: ScanState | null): Promise<void> {
    const { kind, reason, dicom } = described;
    const entry = { path: member.relative_path, size: Number(member.size), sha256: member.sha256, kind, reason, dicom };
    if (!into) return record(entry, member.storage_key, offset, scanned);
    const recognised = offset === null ? undefined : judged.get(member.storage_key)?.get(member.id);
    if (recognised) {
      // Its bundle is kept: nothing here may refuse a file of it (the bundle would go with the file).
      if (kind !== 'dicom') throw new Error('a file recognised as de-identified was not described as DICOM');
      into.outcome.add(member.relative_path, { outcome: 'kept', report: recognised });
      return record(entry, member.storage_key, offset, scanned);
    }
    if (kind !== 'dicom') return refuseMember(member, notDicomReason(entry));
    const bytes = await readBytes();
    const checked = checkInstance(bytes, into.active);
    into.outcome.add(member.relative_path, checked);
    if (checked.outcome === 'refused') return refuseMember(member, checked.reason);
    // A file sent alone and already de-identified stays where it is; a bundle's file gets an object
    // of its own, so that the bundle, which may hold identified files too, can go.
    if (checked.outcome === 'kept' && offset === null) return record(entry, member.storage_key, null, scanned);
    identified.add(member.storage_key);
    const key = entryKey(fileId, seq + 1);
    await record(await storeChecked(entry, bytes, checked, key, into), key, null);
  }

  /** A file of the delivery not kept in a de-identifying project: listed as skipped with the reason, its bytes deleted with the rest. */
  async function refuseMember(member: DeliveryFileRow, reason: string): Promise<void> {
    identified.add(member.storage_key);
    await record(leftOut({ path: member.relative_path, size: Number(member.size) }, reason), null, null);
  }

  /**
   * A file that arrived in a bundle, read in place in the bundle's object (opened once for all its
   * files, read a window at a time): its first bytes and, for DICOM, its header at its offset. An archive among them is
   * copied out to the job's scratch folder and opened as a nested archive.
   */
  async function describeBundled(member: DeliveryFileRow, bundle: { path: string; handle: FileHandle }, scanned: ScanState | null): Promise<void> {
    const offset = Number(member.storage_offset);
    const size = Number(member.size);
    const first = await window.read(member.storage_key, bundle.handle, offset, Math.min(size, MEMBER_FIRST_READ));
    const described = await describeStoredMember(bundle.handle, offset, size, limits.maxDicomHeaderBytes, first);
    if (!described.archive) return recordLeaf(member, described, offset, () => window.read(member.storage_key, bundle.handle, offset, size).then((b) => new Uint8Array(b)), scanned);
    const copy = path.join(await workDir(), `member-${seq + 1}`);
    await pipeline(createReadStream(bundle.path, { start: offset, end: offset + size - 1 }), createWriteStream(copy, { mode: 0o600 }));
    try {
      await openArchiveMember(member, copy, offset);
    } finally {
      await rm(copy, { force: true });
    }
  }

  /**
   * An archive in the folder is opened as a nested archive: its entries are named under its path.
   * `localPath` holds its bytes; those start `memberOffset` bytes into its stored object.
   */
  async function openArchiveMember(member: DeliveryFileRow, localPath: string, memberOffset: number): Promise<void> {
    // In a de-identifying project (issue 33) its DICOM entries are kept de-identified, each in an
    // object of its own, the rest left out; its object goes with the files as they arrived.
    if (into) identified.add(member.storage_key);
    const memberLimits = { ...limits, maxDepth: Math.max(limits.maxDepth - 1, 1), maxEntries: Math.max(limits.maxEntries - seq, 0) };
    const result = await ingestUpload(
      { inputPath: localPath, originalName: path.posix.basename(member.relative_path), workDir: await workDir(), limits: memberLimits, signal, threads: 1 },
      async (entry) => {
        const inner = { ...entry, path: `${member.relative_path}/${entry.path}` };
        if (into) {
          const kept = await deidentifyEntry(inner, () => entryBytes(localPath, entry), entryKey(fileId, seq + 1), into);
          await record(kept.entry, kept.storageKey, null);
          return undefined;
        }
        let storageKey: string | null = null;
        let moved = false;
        // Before its bytes move into storage; one an earlier run recorded keeps its row's verdict.
        let scanned: ScanState | null = null;
        if (seq + 1 > alreadyRecorded) {
          if (entry.inUploadAt !== null) scanned = await scan.entry(bytesOf(localPath, entry.inUploadAt, entry.size));
          else if (entry.tempPath !== null) scanned = await scan.entry(bytesOf(entry.tempPath));
        }
        if (entry.inUploadAt !== null) storageKey = member.storage_key;
        else if (entry.tempPath !== null) {
          storageKey = entryKey(fileId, seq + 1);
          // Stored by the run this one resumes (resumePoint found it whole).
          moved = seq + 1 > alreadyRecorded;
          if (moved) await recorder.store(storageKey, entry.tempPath, entry.size);
        }
        await record(inner, storageKey, entry.inUploadAt === null ? null : memberOffset + entry.inUploadAt, scanned);
        return moved ? 'moved' : undefined;
      },
    );
    // What fails a whole upload (a damaged or encrypted archive, a name that contradicts the content)
    // is one skipped file of the delivery, with the reason in words.
    if (result.status === 'failed') {
      await record(
        { path: member.relative_path, size: Number(member.size), sha256: null, kind: 'skipped', reason: result.error, dicom: null },
        null,
        null,
      );
    }
  }
}

export function processDeliveryJob(deps: ProcessDeliveryDeps): JobKind<TProcessDeliveryPayload> {
  return defineJobKind(PROCESS_DELIVERY, {
    handle: (payload, context) => processDelivery(deps, payload, context),
    // In a de-identifying project the files as they arrived (alone, in bundles) are not kept (issue 33).
    onGiveUp: ({ fileId }, { attempts }) => giveUp(deps, fileId, attempts, () => forgetIdentified(deps, fileId, new Set())),
  });
}

/** Deletes the objects under `keys`, then forgets their rows: a crash between leaves rows naming nothing, never identity unnamed. */
async function dropObjects(deps: Pick<ProcessDeliveryDeps, 'storage' | 'members'>, fileId: number, keys: readonly string[]): Promise<void> {
  for (const key of keys) await deps.storage.delete(key);
  if (keys.length > 0) await deps.members.forgetObjects(fileId, keys);
}

/** Deletes every object the delivery's files arrived in but those in `kept` (still named by an entry), then their rows. */
async function forgetIdentified(deps: Pick<ProcessDeliveryDeps, 'storage' | 'members'>, fileId: number, kept: ReadonlySet<string>): Promise<void> {
  const keys = new Set((await deps.members.membersOfFile(fileId)).map((m) => m.storage_key).filter((k) => !kept.has(k)));
  await dropObjects(deps, fileId, [...keys]);
}

/** Bytes of a bundle read at once: ~25 small files a read instead of a read each. */
const WINDOW_BYTES = 1024 * 1024;

/**
 * The window of a bundle last read, one buffer for the whole job: a file's first bytes are taken
 * from it when they lie inside, else a new window is read from the file's offset. What is handed
 * out is valid until the next read (a description keeps decoded fields, not the bytes).
 */
class BundleWindow {
  readonly #buffer = Buffer.allocUnsafe(WINDOW_BYTES);
  #key: string | null = null;
  #start = 0;
  #length = 0;

  /** `length` bytes (fewer at the end of the object) from `offset` of the bundle `key`, open as `handle`. */
  async read(key: string, handle: FileHandle, offset: number, length: number): Promise<Uint8Array> {
    if (length > WINDOW_BYTES) {
      // More than the window holds: read on its own, leaving the window as it is.
      const own = Buffer.allocUnsafe(length);
      const { bytesRead } = await handle.read(own, 0, length, offset);
      return own.subarray(0, bytesRead);
    }
    if (key !== this.#key || offset < this.#start || offset + length > this.#start + this.#length) {
      this.#key = null;
      const { bytesRead } = await handle.read(this.#buffer, 0, WINDOW_BYTES, offset);
      this.#key = key;
      this.#start = offset;
      this.#length = bytesRead;
    }
    const at = offset - this.#start;
    return this.#buffer.subarray(at, Math.min(at + length, this.#length));
  }
}

/** The bundles of a delivery, each opened once and closed after its last file was read. */
class OpenBundles {
  readonly #left = new Map<string, number>();
  readonly #open = new Map<string, { local: LocalCopy; handle: FileHandle; path: string }>();

  constructor(
    private readonly storage: Storage,
    members: readonly DeliveryFileRow[],
  ) {
    for (const m of members) if (m.storage_offset !== null) this.#left.set(m.storage_key, (this.#left.get(m.storage_key) ?? 0) + 1);
  }

  async open(key: string): Promise<{ path: string; handle: FileHandle }> {
    const known = this.#open.get(key);
    if (known) return known;
    const local = await this.storage.openLocal(key);
    const handle = await open(local.path, 'r').catch(async (err: unknown) => {
      await local.release();
      throw err;
    });
    const opened = { local, handle, path: local.path };
    this.#open.set(key, opened);
    return opened;
  }

  /** One file of the bundle was read: the last one closes it. */
  async done(key: string): Promise<void> {
    const left = (this.#left.get(key) ?? 1) - 1;
    this.#left.set(key, left);
    if (left === 0) await this.#close(key);
  }

  async closeAll(): Promise<void> {
    for (const key of [...this.#open.keys()]) await this.#close(key);
  }

  async #close(key: string): Promise<void> {
    const opened = this.#open.get(key);
    if (!opened) return;
    this.#open.delete(key);
    await opened.handle.close();
    await opened.local.release();
  }
}
