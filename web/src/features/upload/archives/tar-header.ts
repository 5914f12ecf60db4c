// The fields of a ustar header block, read by the archive reader and by the tests' tar reader alike.
export const TAR_BLOCK = 512;

const decoder = new TextDecoder();

/** A NUL-terminated text field. */
export const tarText = (bytes: Uint8Array): string => decoder.decode(bytes).replace(/\0.*$/s, '');

/** An octal number field (empty: 0). */
export const tarOctal = (bytes: Uint8Array): number => parseInt(tarText(bytes).trim() || '0', 8);

/** The header's checksum (bytes 148–155 counted as spaces) equals the one it stores. */
export function tarChecksumOk(header: Uint8Array): boolean {
  let sum = 0;
  header.forEach((b, i) => (sum += i >= 148 && i < 156 ? 0x20 : b));
  return sum === tarOctal(header.subarray(148, 156));
}
