/** Spec §2: what the 'Select Files' picker offers. */
export const ACCEPTED_FILE_TYPES = '.dcm,.zip,.rar,.7z,.tar,.gz,.bz2';

/** Spec §5: a selected folder keeps only files with these extensions. */
export const FOLDER_EXTENSIONS = ['zip', 'rar', '7z', 'tar', 'gz', 'bz2', 'xz', 'lzma', 'dcm', 'dicom'] as const;

export const NO_COMPRESSED_FILES = 'The folder selected does not contain any compressed files.';

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

export function isFolderUploadable(name: string): boolean {
  return (FOLDER_EXTENSIONS as readonly string[]).includes(extensionOf(name));
}

/** The path a picked file had inside its folder, or its name when picked alone. */
export function relativePathOf(file: File): string {
  return file.webkitRelativePath || file.name;
}

export interface FolderSelection {
  folderName: string;
  total: number;
  kept: File[];
}

/**
 * Spec §2/§5: a folder contributes only its archives and DICOM files. The spec calls all of them
 * "compressed files"; a folder of plain .dcm files is therefore accepted, as its users expect.
 */
export function filterFolder(files: readonly File[]): FolderSelection {
  const first = files[0];
  const folderName = first ? (relativePathOf(first).split('/')[0] ?? '') : '';
  return { folderName, total: files.length, kept: files.filter((f) => isFolderUploadable(f.name)) };
}
