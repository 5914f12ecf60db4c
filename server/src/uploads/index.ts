// What deliveries/ and tus/ use of uploads/: the checks every upload passes, the durable store, the
// SHA-256 taken as bytes arrive, and the service that turns bytes into a file row, with the events
// it announces.
export { PendingUploadsRepository } from './pending-uploads.repository.js';
export { startSha256, type Sha256Job } from './sha256-worker.js';
export { sha256Of, storeArriving, type ArrivingBytes } from './arriving-bytes.js';
export { readFileHead, UPLOAD_HEAD_BYTES, UploadTooLargeError } from './upload-pipeline.js';
export { checkContent, checkFileName, checkUploadName } from './upload-rules.js';
export type { UploadEvents } from './upload-events.js';
export { UploadsService, type ReceivedUpload, type UploadPath } from './uploads.service.js';
export { WHOLE_FILES_MEMORY_BYTES, WholeFileMemory } from './whole-file-memory.js';
