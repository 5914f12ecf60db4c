import type { KeptFile, LeftOutFile } from '../file-filters';
import { openableFormat, safeEntryPath } from './archive-format';
import { sliceStream } from './byte-reader';
import { markDeflated } from './entry-source';
import { readTarStream, TarError } from './read-tar-stream';
import { readZip, ZipError } from './read-zip';

export const NOT_DICOM_ENTRY = 'not DICOM: only DICOM files are sent from an archive in this project';
export const UNSAFE_ENTRY = 'its path leads outside the archive';

export interface OpenedArchive {
  /** The archive's DICOM files, each at `<archive name>/<path inside>`, as the files of a folder of that name. */
  kept: KeptFile[];
  leftOut: LeftOutFile[];
}

/** Why an archive could not be listed, in words. */
export class ArchiveError extends Error {}

interface Member {
  path: string;
  dicom: boolean;
  file?: File;
  refused?: string;
}

async function membersOf(archive: File): Promise<Member[]> {
  const format = openableFormat(archive.name);
  if (format === 'zip') {
    return (await readZip(archive)).map((m) => {
      const file = new File([m.data], m.path.split('/').pop() ?? m.path, { lastModified: m.mtimeMs });
      if (m.deflated) markDeflated(file);
      return { path: m.path, dicom: m.dicom, file, ...(m.refused && { refused: m.refused }) };
    });
  }
  if (format === 'tar') {
    // A plain tar's members are slices of it: nothing is read but the headers.
    return (await readTarStream(sliceStream(archive), false)).map((m) => ({
      path: m.path,
      dicom: m.dicom,
      file: new File([archive.slice(m.offset, m.offset + m.size)], m.path.split('/').pop() ?? m.path, { lastModified: m.mtimeMs }),
    }));
  }
  if (format === 'tar.gz') {
    // lib.dom types the gzip writer as BufferSource: the bytes are Uint8Array either way.
    const tar = sliceStream(archive).pipeThrough(new DecompressionStream('gzip') as ReadableWritablePair<Uint8Array, Uint8Array>);
    return (await readTarStream(tar, true)).map((m) => ({
      path: m.path,
      dicom: m.dicom,
      ...(m.data && { file: new File([m.data], m.path.split('/').pop() ?? m.path, { lastModified: m.mtimeMs }) }),
    }));
  }
  throw new ArchiveError('cannot be opened here');
}

/** Lists an archive the browser can open: its DICOM files to send, and what it leaves out and why. */
export async function openArchive(archive: File): Promise<OpenedArchive> {
  let members: Member[];
  try {
    members = await membersOf(archive);
  } catch (error) {
    if (error instanceof ZipError || error instanceof TarError || error instanceof ArchiveError) throw new ArchiveError(`${archive.name} could not be opened (${error.message}): unpack it and send the folder`);
    // DecompressionStream's own errors (a damaged gzip) carry no words for a person.
    throw new ArchiveError(`${archive.name} could not be opened: it may be damaged; unpack it and send the folder`);
  }
  const kept: KeptFile[] = [];
  const leftOut: LeftOutFile[] = [];
  for (const member of members) {
    const inside = safeEntryPath(member.path);
    const shown = `${archive.name}/${inside ?? member.path}`;
    if (inside === null) leftOut.push({ path: shown, reason: UNSAFE_ENTRY });
    else if (member.refused) leftOut.push({ path: shown, reason: member.refused });
    else if (!member.dicom || !member.file) leftOut.push({ path: shown, reason: NOT_DICOM_ENTRY });
    else kept.push({ file: member.file, path: shown, kind: 'dicom' });
  }
  return { kept, leftOut };
}
