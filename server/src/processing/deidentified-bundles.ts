// A bundle (issue 33) whose every file the sender's browser de-identified for the project holds no
// identity: its files can be read in place, as in a project without de-identification, instead of
// each being copied into an object of its own so that the bundle can be deleted. Copying 2,000
// instances of a delivery cost ~1 ms each in file creation alone on a busy disk.
import { recogniseOwnOutput, type DeidReport } from '@portal/deid';
import type { DeliveryFileRow } from '../db/schema.js';
import type { ActivePolicy } from './server-deidentification.js';

/**
 * The engine's report of each file of the bundle, by the file's id, when every one is recognised
 * as the engine's own output for this policy and key; null when one is not (anything identified,
 * unreadable or not DICOM): then each file is checked and kept on its own.
 */
export async function judgeBundle(
  files: readonly DeliveryFileRow[],
  bytesOf: (file: DeliveryFileRow) => Promise<Uint8Array>,
  active: ActivePolicy,
): Promise<Map<number, DeidReport> | null> {
  const reports = new Map<number, DeidReport>();
  for (const file of files) {
    const report = recogniseOwnOutput(await bytesOf(file), active.policy, active.key);
    if (!report) return null;
    reports.set(file.id, report);
  }
  return reports;
}
