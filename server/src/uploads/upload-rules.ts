// What an upload must be before any of its bytes are kept: a usable name, and first bytes that
// are what the name says. DICOM is recognised by its content whatever its name (CD and PACS
// exports hold DICOMDIR and files such as IM000001 with no extension), so a name never refuses a
// file on its own: a name without an accepted extension is judged by its first bytes alone.
import { AppError, badRequest, unprocessable } from '../errors/app-error.js';
import { baseName, removeDisguisingCharacters } from '../files/index.js';
import { describeKind, detectKind, extensionMismatch, hintExtension, kindsForName } from '../ingest/index.js';

export const ACCEPTED_KINDS_MESSAGE =
  'Only these kinds of file are accepted: zip, rar, 7z, tar, gz, bz2, xz, lzma, dcm, dicom ' +
  '(and combined names such as .tar.gz, .tgz, .tar.bz2, .tar.xz), and DICOM files under any name ' +
  '(such as DICOMDIR or a name without extension)';
export const MAX_FILE_NAME_LENGTH = 255;

/**
 * The name to store: control and bidirectional characters removed (the same rule downloads use),
 * trimmed; refused when unusable. The extension is judged (by checkContent) on the cleaned name,
 * which is what every reader of the name will see.
 */
export function checkFileName(raw: string | undefined): string {
  const name = removeDisguisingCharacters(raw ?? '').trim();
  if (!name) throw badRequest('The file has no name');
  if ([...name].length > MAX_FILE_NAME_LENGTH) {
    throw unprocessable(`The file name must be at most ${MAX_FILE_NAME_LENGTH} characters`);
  }
  return name;
}

/**
 * The name of an uploaded file, whatever path brought it (multipart, tus): its base name, since a
 * client may send a path (`../../tmp/x.dcm`, `C:\x\evil.dcm`), by checkFileName's rules.
 */
export function checkUploadName(raw: string | undefined): string {
  return checkFileName(baseName(removeDisguisingCharacters(raw ?? '').trim()));
}

/** Refuses content that contradicts the name (415); answers what kind of upload it is. */
export function checkContent(name: string, head: Buffer): 'dicom' | 'archive' {
  if (head.length === 0) throw new AppError(415, 'The file is empty');
  const kind = detectKind(head);
  if (kindsForName(name) === null) {
    if (kind === 'dicom') return 'dicom';
    throw new AppError(415, unnamedContentMessage(name, kind));
  }
  const mismatch = extensionMismatch(name, kind);
  if (mismatch) throw new AppError(415, mismatch);
  if (kind === 'unknown') throw new AppError(415, `The content of ${name} is neither an archive nor DICOM`);
  return kind === 'dicom' ? 'dicom' : 'archive';
}

/** Why a file whose name promises no accepted kind is refused: what it is, and what would be accepted. */
function unnamedContentMessage(name: string, kind: ReturnType<typeof detectKind>): string {
  const hint = hintExtension(kind);
  if (hint === null) return `The content of ${name} is neither an archive nor DICOM. ${ACCEPTED_KINDS_MESSAGE}.`;
  return `${name} is ${describeKind(kind)} but its name does not end in ${hint}; rename it to end in ${hint} and upload it again.`;
}
