// The one job of a completed delivery (DESIGN §10): the delivery is read as an archive whose
// members are already stored one by one. Each file is read once: a DICOM file is indexed from its
// stored object (its SHA-256 is the one computed while it arrived), an archive is opened as a nested
// archive is, anything else is kept as 'other'. Entries are recorded in batches and made durable
// with one flush at the end; one summary covers the whole delivery.
import path from 'node:path';
import type { DeliveryFileRow } from '../db/schema.js';
import { describeStoredFile, ingestUpload, resolveLimits, SummaryBuilder, type IngestedEntry, type IngestLimits } from '../ingest/index.js';
import { defineJobKind, JobCancelled, type JobContext, type JobKind } from '../jobs/index.js';
import type { Storage } from '../storage/storage.js';
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

  for (const member of await deps.members.membersOfFile(file.id)) {
    signal.throwIfAborted();
    const local = await deps.storage.openLocal(member.storage_key);
    try {
      const described = await describeStoredFile(local.path, limits.maxDicomHeaderBytes);
      if (!described.archive) {
        const { kind, reason, dicom } = described;
        const entry = { path: member.relative_path, size: Number(member.size), sha256: member.sha256, kind, reason, dicom, inUploadAt: null };
        await record(entry, member.storage_key, null);
        continue;
      }
      await openArchiveMember(member, local.path);
    } finally {
      await local.release();
    }
  }
  await recorder.finish();
  const built = summary.build();
  built.in_project = await deps.entries.countInstancesElsewhere(file.id, file.project_id);
  await deps.files.setProcessing(file.id, { status: 'ready', summary: built });

  /** An archive in the folder is opened as a nested archive: its entries are named under its path. */
  async function openArchiveMember(member: DeliveryFileRow, localPath: string): Promise<void> {
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
        await record(inner, storageKey, entry.inUploadAt);
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
