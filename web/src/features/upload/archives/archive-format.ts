/** The archives the browser opens itself to de-identify their entries; others must be unpacked first. */
export type ArchiveFormat = 'zip' | 'tar' | 'tar.gz';

const OPENABLE: ReadonlyArray<[string, ArchiveFormat]> = [
  ['.tar.gz', 'tar.gz'],
  ['.tgz', 'tar.gz'],
  ['.tar', 'tar'],
  ['.zip', 'zip'],
];

export function openableFormat(name: string): ArchiveFormat | null {
  const lower = name.toLowerCase();
  return OPENABLE.find(([suffix]) => lower.endsWith(suffix) && lower.length > suffix.length)?.[1] ?? null;
}

/** Why an archive is refused in a project that de-identifies, and what to do instead. */
export function cannotOpen(name: string): string {
  return `${name} cannot be opened here: unpack it and send the folder`;
}

/** A path inside an archive as it may be sent: relative, without '.' or '..' steps. */
export function safeEntryPath(path: string): string | null {
  const parts = path.replace(/\\/g, '/').split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.includes('..')) return null;
  return parts.join('/');
}
