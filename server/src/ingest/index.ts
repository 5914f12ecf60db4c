// The processing core's public surface: what the job, the upload route and the lead's code import.
export { processUpload } from './ingest-upload.js';
export type { OnEntry, ProcessedEntry, ProcessingResult, ProcessingSummary, ProcessUploadInput } from './ingest-types.js';
export { DEFAULT_LIMITS, resolveLimits, type ProcessingLimits } from './limits.js';
export { acceptedExtension, detectKind, extensionMismatch, kindsForName, type ContentKind } from './detect/detect-kind.js';
export { readDicomHeader, type DicomHeader } from './dicom/dicom-header.js';
export { ENCRYPTED_MESSAGE, SKIP, type SkipReason } from './skip-reasons.js';
