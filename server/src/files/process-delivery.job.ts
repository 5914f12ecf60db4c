// The one job of a completed delivery (DESIGN §10): the delivery is read as an archive whose
// members are already stored one by one. Each file is read once: a DICOM file is indexed from its
// stored object (its SHA-256 is the one computed while it arrived), an archive is opened as a nested
// archive is, anything else is kept as 'other'. Entries are recorded in batches and made durable
// with one flush at the end; one summary covers the whole delivery. Files that arrived in a bundle
// are read in place, and described off this thread: the extraction worker reads each bundle's files
// at their offsets (their kind and DICOM header) while this thread records the ones it has described.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { DeliveryFileRow } from '../db/schema.js';
import {
  describeStoredFile,
  ingestUpload,
  resolveLimits,
  StoredMembersReader,
  SummaryBuilder,
  type DescribedMember,
  type IngestedEntry,
  type IngestLimits,
  type MemberDescriptions,
  type StoredFileKind,
  type StoredMember,
} from '../ingest/index.js';
import type { LocalCopy, Storage } from '../storage/storage.js';
import { defineJobKind, JobCancelled, type JobContext, type JobKind } from '../jobs/index.js';
import type { EntriesRepository } from './entries.repository.js';
import { EntryRecorder } from './entry-recorder.js';
import { entryKey, fileJobType, givenUpMessage, type TFileJobPayload, type UploadsToProcess } from './process-upload.job.js';

export type TProcessDeliveryPayload = TFileJobPayload;

/** Queued when a delivery is completed, in the same transaction (DeliveriesRepository.complete); deleting its row cancels it. */
export const PROCESS_DELIVERY = fileJobType('process-delivery');

export interface ProcessDeliveryDeps {
  files: UploadsToProcess;
  members: { membersOfFile(fileId: number): Promise<DeliveryFileRow[]> };
  entries: EntriesRepository;
  storage: Storage;
  limits: Partial<IngestLimits>;
}

export async function processDelivery(
  deps: ProcessDeliveryDeps,
  { fileId }: TProcessDeliveryPayload,
  { signal, workDir }: Pick<JobContext, 'signal' | 'workDir'>,
): Promise<void> {
  const file = await deps.files.findForProcessing(fileId);
  if (!file || file.deleted_at !== null || file.project_deleted_at !== null) throw new JobCancelled('the delivery was deleted');
  await deps.files.setProcessing(file.id, { status: 'processing' });
  // A rerun starts over: entries are keyed by their place, so nothing is recorded twice.
  await deps.entries.deleteForFile(file.id);
  const limits = resolveLimits(deps.limits);
  const recorder = new EntryRecorder(deps.entries, deps.storage);
  const summary = new SummaryBuilder();
  let seq = 0;

  const record = async (entry: Omit<IngestedEntry, 'tempPath' | 'inputIsEntry'>, storageKey: string | null, offset: number | null) => {
    seq += 1;
    summary.add(entry);
    await recorder.recordEntry(file, seq, entry, { storageKey, offset });
  };

  const members = await deps.members.membersOfFile(file.id);
  const reader = new StoredMembersReader({ outDir: workDir, maxDicomHeaderBytes: limits.maxDicomHeaderBytes, signal });
  const bundles = new BundleReads(deps.storage, reader, members);
  try {
    for (const member of members) {
      signal.throwIfAborted();
      if (member.storage_offset !== null) {
        await recordBundled(member, await bundles.next(member.storage_key));
        continue;
      }
      const local = await deps.storage.openLocal(member.storage_key);
      try {
        const described = await describeStoredFile(local.path, limits.maxDicomHeaderBytes);
        if (!described.archive) {
          await recordLeaf(member, described, null);
          continue;
        }
        await openArchiveMember(member, local.path, 0);
      } finally {
        await local.release();
      }
    }
  } finally {
    // The worker first: a bundle's copy is released once the worker no longer reads it.
    await reader.close();
    await bundles.closeAll();
  }
  await recorder.finish();
  const built = summary.build();
  built.in_project = await deps.entries.countInstancesElsewhere(file.id, file.project_id);
  await deps.files.setProcessing(file.id, { status: 'ready', summary: built });

  async function recordLeaf(member: DeliveryFileRow, described: Exclude<StoredFileKind, { archive: true }>, offset: number | null): Promise<void> {
    const { kind, reason, dicom } = described;
    const entry = { path: member.relative_path, size: Number(member.size), sha256: member.sha256, kind, reason, dicom, inUploadAt: null };
    await record(entry, member.storage_key, offset);
  }

  /**
   * A file that arrived in a bundle, described by the worker where it lies in the bundle's object.
   * An archive among them, copied out by the worker, is opened as a nested archive.
   */
  async function recordBundled(member: DeliveryFileRow, described: DescribedMember): Promise<void> {
    const offset = Number(member.storage_offset);
    if (!described.archive) return recordLeaf(member, described, offset);
    try {
      await openArchiveMember(member, described.copy, offset);
    } finally {
      await rm(described.copy, { force: true });
    }
  }

  /**
   * An archive in the folder is opened as a nested archive: its entries are named under its path.
   * `localPath` holds its bytes; those start `memberOffset` bytes into its stored object.
   */
  async function openArchiveMember(member: DeliveryFileRow, localPath: string, memberOffset: number): Promise<void> {
    const memberLimits = { ...limits, maxDepth: Math.max(limits.maxDepth - 1, 1), maxEntries: Math.max(limits.maxEntries - seq, 0) };
    const result = await ingestUpload(
      { inputPath: localPath, originalName: path.posix.basename(member.relative_path), workDir: await workDir(), limits: memberLimits, signal, threads: 1 },
      async (entry) => {
        const inner = { ...entry, path: `${member.relative_path}/${entry.path}` };
        let storageKey: string | null = null;
        let moved = false;
        if (entry.inUploadAt !== null) storageKey = member.storage_key;
        else if (entry.tempPath !== null) {
          storageKey = entryKey(fileId, seq + 1);
          await recorder.store(storageKey, entry.tempPath, entry.size);
          moved = true;
        }
        await record(inner, storageKey, entry.inUploadAt === null ? null : memberOffset + entry.inUploadAt);
        return moved ? 'moved' : undefined;
      },
    );
    // What fails a whole upload (a damaged or encrypted archive, a name that contradicts the content)
    // is one skipped file of the delivery, with the reason in words.
    if (result.status === 'failed') {
      await record(
        { path: member.relative_path, size: Number(member.size), sha256: null, kind: 'skipped', reason: result.error, dicom: null, inUploadAt: null },
        null,
        null,
      );
    }
  }
}

export function processDeliveryJob(deps: ProcessDeliveryDeps): JobKind<TProcessDeliveryPayload> {
  return defineJobKind(PROCESS_DELIVERY, {
    handle: (payload, context) => processDelivery(deps, payload, context),
    onGiveUp: ({ fileId }, { attempts }) => deps.files.setProcessing(fileId, { status: 'failed', error: givenUpMessage(attempts) }),
  });
}

/**
 * The bundles of a delivery: each made local once, its files described by the worker in the order
 * the job takes them, and released after its last file. The next bundle is queued behind the one
 * being read, so the worker describes it while this thread records the current one's files.
 */
class BundleReads {
  /** Each bundle's files, in the order the job takes them; bundles in the order first met. */
  readonly #members = new Map<string, StoredMember[]>();
  readonly #after = new Map<string, string>();
  readonly #open = new Map<string, { local: LocalCopy; descriptions: MemberDescriptions; left: number }>();
  readonly #done = new Set<string>();

  constructor(
    private readonly storage: Storage,
    private readonly reader: StoredMembersReader,
    members: readonly DeliveryFileRow[],
  ) {
    let last: string | null = null;
    for (const m of members) {
      if (m.storage_offset === null) continue;
      let list = this.#members.get(m.storage_key);
      if (list === undefined) {
        list = [];
        this.#members.set(m.storage_key, list);
        if (last !== null) this.#after.set(last, m.storage_key);
        last = m.storage_key;
      }
      list.push({ offset: Number(m.storage_offset), size: Number(m.size) });
    }
  }

  /** The description of the bundle's next file. */
  async next(key: string): Promise<DescribedMember> {
    const opened = await this.#start(key);
    const after = this.#after.get(key);
    if (after !== undefined) await this.#start(after);
    if (opened === null) throw new Error('every file of the bundle was read already');
    const described = await opened.descriptions.next();
    opened.left -= 1;
    if (opened.left === 0) await this.#close(key);
    return described;
  }

  async closeAll(): Promise<void> {
    for (const key of [...this.#open.keys()]) await this.#close(key);
  }

  async #start(key: string): Promise<{ descriptions: MemberDescriptions; left: number } | null> {
    const known = this.#open.get(key);
    if (known !== undefined || this.#done.has(key)) return known ?? null;
    const members = this.#members.get(key) ?? [];
    const local = await this.storage.openLocal(key);
    try {
      const opened = { local, descriptions: await this.reader.describe(local.path, members), left: members.length };
      this.#open.set(key, opened);
      return opened;
    } catch (err) {
      await local.release();
      throw err;
    }
  }

  async #close(key: string): Promise<void> {
    const opened = this.#open.get(key);
    if (!opened) return;
    this.#open.delete(key);
    this.#done.add(key);
    await opened.descriptions.finished;
    await opened.local.release();
  }
}
