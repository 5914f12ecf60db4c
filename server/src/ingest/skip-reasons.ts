// Why an entry was not kept. Fixed strings, because the summary counts entries per reason.

export const SKIP = {
  traversal: 'path traversal (..)',
  absolute: 'absolute path',
  driveLetter: 'drive letter in path',
  backslash: 'backslash in path',
  controlChars: 'control characters in name',
  emptyName: 'empty name',
  symlink: 'symbolic link',
  hardLink: 'hard link',
  special: 'device, FIFO or socket',
  duplicate: 'duplicate path',
  tooMany: 'too many entries',
  entryTooLarge: 'entry over the size limit',
  headerLied: 'entry larger than its header states',
  ratio: 'compression ratio over the limit',
  totalSize: 'total size limit reached',
  depth: 'archive nested deeper than the limit',
  encrypted: 'password-protected archives are not supported',
  corruptData: 'corrupt or truncated data',
  corruptArchive: 'corrupt or truncated archive',
  notExtracted: 'not extracted by the archive reader',
} as const;

export type SkipReason = (typeof SKIP)[keyof typeof SKIP];

/** The exact sentence the issue fixes for encrypted uploads. */
export const ENCRYPTED_MESSAGE = SKIP.encrypted;
