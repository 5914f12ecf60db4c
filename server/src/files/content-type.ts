// The Content-Type a download carries, from the name the file was accepted under.
const TYPES: [suffix: string, type: string][] = [
  ['.dcm', 'application/dicom'],
  ['.dicom', 'application/dicom'],
  ['.zip', 'application/zip'],
  ['.rar', 'application/vnd.rar'],
  ['.7z', 'application/x-7z-compressed'],
  ['.tar', 'application/x-tar'],
  ['.tgz', 'application/gzip'],
  ['.gz', 'application/gzip'],
  ['.tbz2', 'application/x-bzip2'],
  ['.bz2', 'application/x-bzip2'],
  ['.txz', 'application/x-xz'],
  ['.xz', 'application/x-xz'],
  ['.lzma', 'application/x-lzma'],
];

/** Every type a download may carry: a known archive or DICOM, a folder's zip, or plain bytes. */
export const DOWNLOAD_CONTENT_TYPES = [...new Set([...TYPES.map(([, type]) => type), 'application/octet-stream'])];

export function contentTypeFor(fileName: string): string {
  const lower = fileName.toLowerCase();
  return TYPES.find(([suffix]) => lower.endsWith(suffix))?.[1] ?? 'application/octet-stream';
}
