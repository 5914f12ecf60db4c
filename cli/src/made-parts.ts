// What a send's files become on the wire: as they are, or de-identified here first.
import { bundleParts, type BundleMember } from '@portal/contract/delivery-bundle';
import { sourceSize, type Part } from './byte-source.js';
import { deidentifyFile, type ProjectDeidentification } from './deidentification.js';

export interface Leaving {
  path: string;
  absolute: string;
  size: number;
  mtimeMs: number;
}

export interface LeftOut {
  path: string;
  reason: string;
  /** A DICOMDIR is left out on purpose (it names the patient; its images go on their own): not a failure. */
  dicomdir: boolean;
}

/** The bytes of one file as sent; a file the engine refuses is answered as left out. */
export async function partsOf(file: Leaving, deid: ProjectDeidentification): Promise<Part[] | LeftOut> {
  if (deid.where !== 'here') return [{ path: file.absolute, start: 0, end: file.size }];
  const made = await deidentifyFile(file.absolute, file.size, deid.policy, deid.key);
  return 'refused' in made ? { path: file.path, reason: made.refused, dicomdir: made.dicomdir } : made.parts;
}

/** A bundle's tar as parts; files left out are not in it. */
export async function bundleOf(files: readonly Leaving[], deid: ProjectDeidentification): Promise<{ parts: Part[]; leftOut: LeftOut[]; members: number }> {
  const members: { member: BundleMember; parts: Part[] }[] = [];
  const leftOut: LeftOut[] = [];
  for (const file of files) {
    const parts = await partsOf(file, deid);
    if (!Array.isArray(parts)) leftOut.push(parts);
    else members.push({ member: { path: file.path, size: sourceSize(parts), mtimeMs: file.mtimeMs }, parts });
  }
  return { parts: members.length > 0 ? bundleParts(members) : [], leftOut, members: members.length };
}
