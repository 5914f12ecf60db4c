// One rule for which characters a file name may keep, applied when an upload is stored and again
// when a download names the file, so the API, the web app and a saved download show the same name;
// and the same rule for every segment of a path inside an upload (an archive's entry, a file of a
// delivery), applied when it is recorded and again wherever it is shown.

/**
 * Characters that can disguise a name or break where it is shown: C0 and C1 controls and DEL
 * (Cc: they can split headers or hide in a file manager), every Unicode format control (Cf: the
 * bidirectional overrides, embeddings, isolates and marks such as U+202E, which turn `gpj.dcm` into
 * what looks like `mcd.jpg`, plus invisible ones such as U+200B, U+2060, U+FEFF and the tag
 * characters), and the line and paragraph separators (Zl, Zp). U+200C and U+200D (zero-width
 * non-joiner and joiner) are kept: Persian and Indic spellings and emoji sequences need them, and
 * they cannot reorder what is shown.
 */
const DISGUISING = /(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** The name without characters that can disguise it (see DISGUISING), in NFC. */
export function removeDisguisingCharacters(name: string): string {
  return name.normalize('NFC').replace(DISGUISING, '');
}

/**
 * A path inside an upload (segments joined by `/`: an archive entry's, a file's in a delivery)
 * with each segment cleaned as a file name is; a segment that held nothing else goes with its `/`.
 * Paths are cleaned when recorded and again when shown (contents, a delivery's zip), for rows
 * recorded before the rule.
 */
export function removeDisguisingCharactersFromPath(path: string): string {
  return path
    .split('/')
    .flatMap((segment) => {
      const cleaned = removeDisguisingCharacters(segment);
      return cleaned === '' && segment !== '' ? [] : [cleaned];
    })
    .join('/');
}

/**
 * The last segment of a name sent with a path (`../../tmp/x.dcm`, `C:\x\evil.dcm`), as busboy
 * keeps a multipart file's name; '' for `.` and `..`, which name no file.
 */
export function baseName(name: string): string {
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  return base === '.' || base === '..' ? '' : base;
}
