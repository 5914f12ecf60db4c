// What the two processing jobs (an upload's, a delivery's) share: the repository calls they make on
// the file row, the keys of the objects they store per entry, and how a job that gives up ends.
import type { TProcessingStatus, TProcessingSummary } from '@portal/contract';
import type { Db } from '../db/database.js';
import type { ProjectFileRow } from '../db/schema.js';
import { activePolicy, type ProjectPolicies } from './server-deidentification.js';

/** What the jobs need of the files repository. */
export interface UploadsToProcess {
  findForProcessing(id: number): Promise<(ProjectFileRow & { project_deleted_at: string | null }) | undefined>;
  setProcessing(id: number, state: { status: TProcessingStatus; error?: string | null; summary?: TProcessingSummary | null }, db?: Db): Promise<void>;
  replaceObject(id: number, object: { storageKey: string; size: number; sha256: string }, outcome: string): Promise<void>;
  setDeidOutcome(id: number, outcome: string, db?: Db): Promise<void>;
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
  deps: { files: UploadsToProcess; policies?: ProjectPolicies },
  fileId: number,
  attempts: number,
  deleteIdentified: (file: NonNullable<Awaited<ReturnType<UploadsToProcess['findForProcessing']>>>) => Promise<void>,
): Promise<void> {
  const file = await deps.files.findForProcessing(fileId);
  const deidentifying = file !== undefined && (await activePolicy(deps.policies, file.project_id)) !== null;
  if (file && deidentifying) await deleteIdentified(file);
  await deps.files.setProcessing(fileId, { status: 'failed', error: deidentifying ? givenUpDeletedMessage(attempts) : givenUpMessage(attempts) });
}
