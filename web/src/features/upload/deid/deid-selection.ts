import { cannotOpen, openableFormat } from '../archives/archive-format';
import { ArchiveError, openArchive } from '../archives/open-archive';
import type { KeptFile, LeftOutFile } from '../file-filters';

/** The engine's own reason (DeidentificationError 'dicomdir'), said before the file is ever read. */
export const DICOMDIR_LEFT_OUT = 'a DICOMDIR, the index of a disc: it names the patient, so it is left out; the images it lists are sent on their own';

/** Files to send together: a picked folder's, an archive's (its name is the delivery's), or picked files (folder null). */
export interface SendGroup {
  folder: string | null;
  kept: KeptFile[];
}

export interface DeidSelection {
  groups: SendGroup[];
  leftOut: LeftOutFile[];
  /** Archives refused in the dialog, each with what to do instead. */
  refused: string[];
}

const baseName = (path: string) => path.split('/').pop() ?? path;

/**
 * What a pick becomes in a project that de-identifies: DICOM files as they are (a DICOMDIR is left
 * out), archives the browser can open as deliveries of their DICOM entries, other archives refused.
 */
export async function selectForDeidentification(kept: readonly KeptFile[], folder: string | null): Promise<DeidSelection> {
  const files: KeptFile[] = [];
  const groups: SendGroup[] = [];
  const leftOut: LeftOutFile[] = [];
  const refused: string[] = [];
  for (const item of kept) {
    if (item.kind === 'dicom') {
      if (baseName(item.path).toUpperCase() === 'DICOMDIR') leftOut.push({ path: item.path, reason: DICOMDIR_LEFT_OUT });
      else files.push(item);
      continue;
    }
    if (!openableFormat(item.file.name)) {
      refused.push(cannotOpen(item.file.name));
      continue;
    }
    try {
      const archive = await openArchive(item.file);
      leftOut.push(...archive.leftOut);
      const dicom = archive.kept.filter((k) => {
        if (baseName(k.path).toUpperCase() !== 'DICOMDIR') return true;
        leftOut.push({ path: k.path, reason: DICOMDIR_LEFT_OUT });
        return false;
      });
      if (dicom.length > 0) groups.push({ folder: item.file.name, kept: dicom });
    } catch (error) {
      refused.push(error instanceof ArchiveError ? error.message : cannotOpen(item.file.name));
    }
  }
  return { groups: [{ folder, kept: files }, ...groups].filter((g) => g.kept.length > 0), leftOut, refused };
}
