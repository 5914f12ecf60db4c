// What uploads/ announces; who reacts is wired in services.ts (events/events.ts).
import type { ProjectFileRow } from '../db/schema.js';

export interface UploadEvents {
  /** A multipart or tus upload became a file row, with its job (counted by path; its job may start at once). */
  'file.uploaded': [file: ProjectFileRow, via: 'multipart' | 'tus'];
}
