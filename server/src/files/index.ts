// What the rooms built on the catalogue (uploads/, deliveries/, tus/, processing/) and the
// composition may use of files/: the file rows, their names' rules, the job definitions, and the
// events it announces.
export { EntriesRepository } from './entries.repository.js';
export {
  describedForJob,
  PROCESS_DELIVERY,
  PROCESS_UPLOAD,
  PURGE_ACTOR,
  PURGE_DELETED,
  uploadSubject,
  type TDescribedFile,
  type TFileJobPayload,
  type TProcessDeliveryPayload,
  type TProcessUploadPayload,
  type TPurgePayload,
} from './file-jobs.js';
export type { FileEvents } from './file-events.js';
export { baseName, removeDisguisingCharacters, removeDisguisingCharactersFromPath } from './file-name.js';
export { presentFile } from './file.presenter.js';
export { FilesRepository, type CommitOptions, type FileRow, type NewFile } from './files.repository.js';
export type { FolderFile, FolderMembers } from './folder-members.js';
export { cleanFileName } from './download-response.js';
export { liveInstances } from './live-instances.js';
export { findReplaceable, markReplaced, notReplaceable } from './replacement.js';
