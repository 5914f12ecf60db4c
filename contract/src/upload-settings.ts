// GET /upload-settings: how the web app cuts a resumable (tus) upload into requests.
import { z } from './zod.js';

export const ZUploadSettings = z.object({
  chunk_bytes: z.number().int().describe('Send a tus upload in PATCH requests of this many bytes (UPLOAD_CHUNK_BYTES); the server takes any size'),
});
export type TUploadSettings = z.infer<typeof ZUploadSettings>;
