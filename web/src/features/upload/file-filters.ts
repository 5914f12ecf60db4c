import { mapInSlices, nextTask } from '../../lib/next-task';
import { sniffOffPage, type Sniffed } from './dicom-sniff';

/**
 * The names the server accepts (server/src/ingest/detect/detect-kind.ts), longest first so that
 * '.tar.gz' wins over '.gz'. Spec §5's folder extensions plus tgz and the tar short forms.
 */
const ARCHIVE_SUFFIXES = ['.tar.lzma', '.tar.bz2', '.tar.gz', '.tar.xz', '.dcm.gz', '.lzma', '.tbz2', '.tbz', '.tgz', '.txz', '.tlz', '.zip', '.rar', '.tar', '.bz2', '.7z', '.gz', '.xz'];
const DICOM_SUFFIXES = ['.dicom', '.dcm'];

/** What the dialog tells users it takes; the same list the server checks. */
export const ACCEPTED_TYPES_HINT = 'archives (zip, rar, 7z, tar, gz, tgz, bz2, xz, lzma) and DICOM files (dcm, dicom, or without an extension, such as DICOMDIR or IM000001)';

export const NO_COMPRESSED_FILES = 'The folder selected does not contain any compressed files.';
export const NOT_ACCEPTED = 'not an archive or DICOM';
export const EMPTY_FILE = 'empty file';
export const UNREADABLE = 'could not be read';

export type FileKind = 'archive' | 'dicom';

function endsWithSuffix(name: string, suffixes: readonly string[]): boolean {
  const lower = name.toLowerCase();
  // The server wants a name before the suffix: '.zip' alone is not an archive's name.
  return suffixes.some((s) => lower.endsWith(s) && lower.length > s.length);
}

/** The kind a name promises, or null when only the content can tell. */
export function kindByName(name: string): FileKind | null {
  if (endsWithSuffix(name, ARCHIVE_SUFFIXES)) return 'archive';
  if (endsWithSuffix(name, DICOM_SUFFIXES)) return 'dicom';
  return null;
}

/** The path a picked file had inside its folder, or its name when picked alone. */
export function relativePathOf(file: File): string {
  return file.webkitRelativePath || file.name;
}

export interface KeptFile {
  file: File;
  path: string;
  kind: FileKind;
}

export interface LeftOutFile {
  path: string;
  reason: string;
}

export interface Selection {
  kept: KeptFile[];
  leftOut: LeftOutFile[];
}

/** Kept by its name, left out by its size, or null when only its first bytes can tell. */
function classifyByName(file: File): KeptFile | LeftOutFile | null {
  const path = relativePathOf(file);
  if (file.size === 0) return { path, reason: EMPTY_FILE };
  const byName = kindByName(file.name);
  return byName ? { file, path, kind: byName } : null;
}

const BY_CONTENT: Record<Sniffed, (file: File, path: string) => KeptFile | LeftOutFile> = {
  dicom: (file, path) => ({ file, path, kind: 'dicom' }),
  other: (_file, path) => ({ path, reason: NOT_ACCEPTED }),
  unreadable: (_file, path) => ({ path, reason: UNREADABLE }),
};

/**
 * Keeps archives by name and DICOM by name or content, in the order picked; says why the rest was
 * left out. The first bytes are read in a Web Worker (dicom-sniff.ts), so a CD export's thousands
 * of reads do not hold the page.
 */
export async function selectAccepted(files: readonly File[]): Promise<Selection> {
  // A picked File's first `size` (or any use that needs it: a slice, sending it to a worker) is a
  // synchronous round trip to the browser process, 0.25–4 ms in Chromium here: 2,000 at once held
  // the page for 0.5–1.6 s. Later reads are kept, so the names are judged in slices.
  const results = await mapInSlices(files, classifyByName);
  const unknown = files.filter((_file, i) => results[i] === null);
  const sniffed = await sniffOffPage(unknown);
  let next = 0;
  const classified = results.map((result, i) => {
    if (result) return result;
    const file = files[i] as File;
    return BY_CONTENT[sniffed[next++] ?? 'unreadable'](file, relativePathOf(file));
  });
  const kept = classified.filter((r): r is KeptFile => 'kind' in r);
  const leftOut = classified.filter((r): r is LeftOutFile => !('kind' in r));
  return { kept, leftOut };
}

export interface FolderSelection extends Selection {
  folderName: string;
  total: number;
  dicomCount: number;
  archiveCount: number;
}

/** Spec §2/§5: a folder contributes only what the portal accepts, and the info line counts it. */
export async function filterFolder(files: readonly File[]): Promise<FolderSelection> {
  const first = files[0];
  const folderName = first ? (relativePathOf(first).split('/')[0] ?? '') : '';
  // Browsers list a folder's files in no useful order; by path, a CD's series reads IM000001, IM000002…
  // One collator for the whole sort: localeCompare with options builds one per comparison, which
  // held the page for a second on a 2,000-file folder.
  const byPath = new Intl.Collator(undefined, { numeric: true });
  const sorted = files.map((file) => ({ file, path: relativePathOf(file) })).sort((a, b) => byPath.compare(a.path, b.path)).map(({ file }) => file);
  // The pick's own event and this sort are one task already: the files are judged in the next.
  await nextTask();
  const selection = await selectAccepted(sorted);
  return {
    ...selection,
    folderName,
    total: files.length,
    dicomCount: selection.kept.filter((k) => k.kind === 'dicom').length,
    archiveCount: selection.kept.filter((k) => k.kind === 'archive').length,
  };
}

export function describeLeftOut(leftOut: readonly LeftOutFile[]): string {
  return leftOut.map((l) => `${l.path}: ${l.reason}`).join(', ');
}
