// The engine's public surface: what the upload rooms (files/, uploads/, deliveries/, processing/), the config and the tests import.
export { ingestUpload } from './ingest-upload.js';
export type { OnEntry, IngestedEntry, IngestResult, IngestSummary, IngestInput } from './ingest-types.js';
export { DEFAULT_LIMITS, resolveLimits, type IngestLimits } from './limits.js';
export {
  acceptedExtension,
  describeKind,
  detectKind,
  extensionMismatch,
  hintExtension,
  kindsForName,
  type ContentKind,
} from './detect/detect-kind.js';
export { readDicomHeader, readDicomHeaderBy, type DicomHeader } from './dicom/dicom-header.js';
export { decodeDicomText } from './dicom/dicom-charset.js';
export { ENCRYPTED_MESSAGE, SKIP, type SkipReason } from './skip-reasons.js';
export { describeStoredBytes, describeStoredFile, describeStoredMember, MEMBER_FIRST_READ, type StoredFileKind } from './stored-file.js';
export { describeBytesOffThread } from './describe-thread.js';
export { readTarHeaders } from './extract/tar/tar-headers.js';
export { SummaryBuilder } from './summary.js';
export { normalizeEntryPath } from './entry-path.js';
export { tsxBootstrap } from './extract/sevenzip/sevenzip-thread.js';
