// The UIDs a stored instance will carry, for the STOW answer: the de-identification engine's
// replacements where the project replaces UIDs, except for an instance already de-identified with
// the project's policy and key, which processing keeps byte for byte, its UIDs with it.
import { open } from 'node:fs/promises';
import type { DataSet } from 'dicom-parser';
import type { TDeidentificationPolicy } from '@portal/contract';
import { isDeidentifiedBy, replacementUid } from '@portal/deid';

const DEFLATED = '1.2.840.10008.1.2.1.99';
/** A header read whole to recognise the engine's marks is at most this large (a deflated file: the file). */
const MAX_READ = 64 * 1024 * 1024;

export interface UidRule {
  policy: TDeidentificationPolicy;
  key: Buffer;
}

/** How the instance written at `file` (its header read into `dataSet`) will name its UIDs once stored. */
export async function storedUids(file: string, size: number, dataSet: DataSet, syntax: string | null, rule: UidRule | null): Promise<(uid: string) => string> {
  if (rule === null || rule.policy.profile === 'off' || rule.policy.options.includes('retainUIDs')) return (uid) => uid;
  const replace = (uid: string) => replacementUid(uid, rule.key);
  // Only an instance that says its identity was removed can carry the engine's marks.
  if (dataSet.string('x00120062')?.trim().toUpperCase() !== 'YES') return replace;
  const pixels = dataSet.elements.x7fe00010;
  // Everything before Pixel Data's element (12 bytes of header with explicit VRs, 8 without) holds the marks.
  const end = pixels && syntax !== DEFLATED ? pixels.dataOffset - (pixels.vr ? 12 : 8) : size;
  if (end > MAX_READ || end <= 0) return replace;
  const handle = await open(file, 'r');
  try {
    const bytes = Buffer.alloc(end);
    await handle.read(bytes, 0, end, 0);
    const kept = isDeidentifiedBy(bytes, { profile: 'basic', options: rule.policy.options }, rule.key);
    return kept ? (uid) => uid : replace;
  } finally {
    await handle.close();
  }
}
