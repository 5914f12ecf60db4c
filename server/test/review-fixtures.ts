// Bad deliveries for the arrival rules (issue 35), made from the repo's own DICOM fixtures with
// dcmtk's dcmodify (a real header edit, not a hand-built file), and zipped with bsdtar.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FIXTURES } from './uploads.js';

/** Tags as dcmodify names them. */
export const TAG = {
  patientId: '(0010,0020)',
  patientSex: '(0010,0040)',
  patientBirthDate: '(0010,0030)',
  studyUid: '(0020,000d)',
  seriesUid: '(0020,000e)',
  sopUid: '(0008,0018)',
  seriesDescription: '(0008,103e)',
  modality: '(0008,0060)',
  studyDate: '(0008,0020)',
} as const;

/** The CT fixture the variants start from: study …16302.0.1, series …0.6, PatientID 98890234, sex M, 2001-01-01. */
export const CT = 's03_CT_series5N_2062.dcm';
/** An MR of another patient (4MR1, sex F). */
export const MR = 's10_MR_small_implicit.dcm';

export const CT_SOP = '1.3.6.1.4.1.5962.1.1.0.0.0.1194734704.16302.0.12';
export const CT_STUDY = '1.3.6.1.4.1.5962.1.1.0.0.0.1194734704.16302.0.1';

let scratch: string | undefined;
const scratchDir = () => (scratch ??= fs.mkdtempSync(path.join(os.tmpdir(), 'portal-review-')));
let made = 0;

/** The fixture `base` with the tags set to the values given (`-i` inserts a tag the file lacks). */
export function variant(base: string, changes: Partial<Record<keyof typeof TAG, string>> = {}): Buffer {
  const file = path.join(scratchDir(), `v${(made += 1)}-${base}`);
  fs.copyFileSync(path.join(FIXTURES, 'dicom', base), file);
  const args = Object.entries(changes).flatMap(([key, value]) => ['-i', `${TAG[key as keyof typeof TAG]}=${value}`]);
  if (args.length > 0) execFileSync('dcmodify', ['-nb', '-q', ...args, file]);
  return fs.readFileSync(file);
}

/** A zip of the entries, by path. */
export function zipOf(entries: Record<string, Buffer>): Buffer {
  const dir = fs.mkdtempSync(path.join(scratchDir(), 'zip-'));
  for (const [name, data] of Object.entries(entries)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), data);
  }
  const zip = path.join(scratchDir(), `z${(made += 1)}.zip`);
  execFileSync('bsdtar', ['-a', '-cf', zip, '-C', dir, ...Object.keys(entries)]);
  return fs.readFileSync(zip);
}

export function removeScratch(): void {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
}
