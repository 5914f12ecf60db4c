// What an upload must be before any of its bytes are kept: a name of an accepted kind, and
// first bytes that are what the name says.
import { AppError, badRequest, unprocessable } from '../errors/app-error.js';
import { removeDisguisingCharacters } from './file-name.js';
import { acceptedExtension, detectKind, extensionMismatch } from '../ingest/index.js';

export const ACCEPTED_KINDS_MESSAGE =
  'Only these kinds of file are accepted: zip, rar, 7z, tar, gz, bz2, xz, lzma, dcm, dicom ' +
  '(and combined names such as .tar.gz, .tgz, .tar.bz2, .tar.xz)';
export const MAX_FILE_NAME_LENGTH = 255;

/**
 * The name to store: control and bidirectional characters removed (the same rule downloads use),
 * trimmed; refused when unusable. The extension is judged on the cleaned name, which is what every
 * reader of the name will see.
 */
export function checkFileName(raw: string | undefined): string {
  const name = removeDisguisingCharacters(raw ?? '').trim();
  if (!name) throw badRequest('The file has no name');
  if ([...name].length > MAX_FILE_NAME_LENGTH) {
    throw unprocessable(`The file name must be at most ${MAX_FILE_NAME_LENGTH} characters`);
  }
  if (!acceptedExtension(name)) throw new AppError(415, ACCEPTED_KINDS_MESSAGE);
  return name;
}

/** Refuses content that contradicts the name (415); answers what kind of upload it is. */
export function checkContent(name: string, head: Buffer): 'dicom' | 'archive' {
  if (head.length === 0) throw new AppError(415, 'The file is empty');
  const kind = detectKind(head);
  const mismatch = extensionMismatch(name, kind);
  if (mismatch) throw new AppError(415, mismatch);
  if (kind === 'unknown') throw new AppError(415, `The content of ${name} is neither an archive nor DICOM`);
  return kind === 'dicom' ? 'dicom' : 'archive';
}
