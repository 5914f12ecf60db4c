// What a QIDO-RS client may ask for: DICOM JSON (PS3.18 8.7.3). application/json is taken as the
// same answer, as most servers do; a client that names only other types is answered 406.
import { AppError } from '../errors/app-error.js';

const ANSWERABLE = new Set(['application/dicom+json', 'application/json', 'application/*', '*/*']);

export function requireDicomJson(accept: string | undefined): void {
  if (accept === undefined || accept.trim() === '') return;
  const types = accept.split(',').map((range) => range.split(';')[0]!.trim().toLowerCase());
  if (types.some((type) => ANSWERABLE.has(type))) return;
  throw new AppError(406, 'This search answers only DICOM JSON: ask for application/dicom+json (or leave Accept out)');
}
