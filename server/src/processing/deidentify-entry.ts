// One DICOM entry of a de-identifying project (issue 33, item 4), as both jobs keep it: an entry of
// an archive uploaded whole, of an archive in a delivery, or a delivery's own file. What is kept is
// stored in an object of its own under the entry's key (fixed by its place, so a rerun writes the
// same object with the same bytes: the engine's output is deterministic), and recorded with the
// fields read again from the bytes kept, so the indexed patient name and ID are the pseudonyms.
import { open, readFile } from 'node:fs/promises';
import { describeStoredBytes, type IngestedEntry } from '../ingest/index.js';
import type { EntryRecorder } from './entry-recorder.js';
import { checkInstance, NOT_DICOM_LEFT_OUT, type ActivePolicy, type CheckedInstance, type OutcomeBuilder } from './server-deidentification.js';

/** What an entry is recorded with. */
export type EntryFacts = Pick<IngestedEntry, 'path' | 'size' | 'sha256' | 'kind' | 'reason' | 'dicom'>;

export interface DeidentifyInto {
  active: ActivePolicy;
  outcome: OutcomeBuilder;
  recorder: EntryRecorder;
  maxDicomHeaderBytes: number;
}

/** An entry not kept: listed as skipped with the reason, no bytes. */
export function leftOut(entry: Pick<EntryFacts, 'path' | 'size'>, reason: string): EntryFacts {
  return { path: entry.path, size: entry.size, sha256: null, kind: 'skipped', reason, dicom: null };
}

/** Why a file that is not DICOM is not kept: its own reason when it was already skipped, else that only DICOM is kept. */
export function notDicomReason(entry: Pick<EntryFacts, 'kind' | 'reason'>): string {
  return entry.kind === 'skipped' && entry.reason !== null ? entry.reason : NOT_DICOM_LEFT_OUT;
}

/**
 * Stores an instance the engine kept or rewrote under `key`: the bytes as they are when already
 * de-identified, else the engine's. Answers the entry as recorded.
 */
export async function storeChecked(
  entry: EntryFacts,
  original: Uint8Array,
  checked: Exclude<CheckedInstance, { outcome: 'refused' }>,
  key: string,
  into: Pick<DeidentifyInto, 'recorder' | 'maxDicomHeaderBytes'>,
): Promise<EntryFacts> {
  if (checked.outcome === 'kept') {
    await into.recorder.storeBytes(key, original);
    return entry;
  }
  const rewritten = describeStoredBytes(checked.bytes, into.maxDicomHeaderBytes);
  if (rewritten.archive) throw new Error('a de-identified instance read as an archive');
  await into.recorder.storeBytes(key, checked.bytes);
  return { ...entry, size: checked.bytes.length, sha256: checked.sha256, kind: rewritten.kind, reason: rewritten.reason, dicom: rewritten.dicom };
}

/**
 * An entry of an archive: a DICOM one is checked and kept de-identified under `key`; a refused one
 * and anything else is left out. Answers what to record and where its bytes are (null: nowhere).
 */
export async function deidentifyEntry(
  entry: EntryFacts,
  bytesOf: () => Promise<Uint8Array>,
  key: string,
  into: DeidentifyInto,
): Promise<{ entry: EntryFacts; storageKey: string | null }> {
  if (entry.kind !== 'dicom') return { entry: leftOut(entry, notDicomReason(entry)), storageKey: null };
  const bytes = await bytesOf();
  const checked = checkInstance(bytes, into.active);
  into.outcome.add(entry.path, checked);
  if (checked.outcome === 'refused') return { entry: leftOut(entry, checked.reason), storageKey: null };
  return { entry: await storeChecked(entry, bytes, checked, key, into), storageKey: key };
}

/** An entry's bytes: extracted to a scratch file, or a stored range of the archive (at `archivePath`) read in place. */
export async function entryBytes(archivePath: string, entry: IngestedEntry): Promise<Uint8Array> {
  if (entry.tempPath !== null) return readFile(entry.tempPath);
  if (entry.inUploadAt === null) return new Uint8Array(0);
  const handle = await open(archivePath, 'r');
  try {
    const bytes = Buffer.allocUnsafe(entry.size);
    const { bytesRead } = await handle.read(bytes, 0, entry.size, entry.inUploadAt);
    return bytes.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
