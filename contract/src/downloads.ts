// Downloads: single-use links for the browser's own download manager, and the size the page reads itself.
import { z } from './zod.js';

/** POST /download-links: a short-lived, single-use URL for the browser's own download manager. */
export const ZCreateDownloadLink = z.strictObject({
  file_id: z.number().int().min(1).max(2_147_483_647),
  entry_id: z.number().int().min(1).max(2_147_483_647).optional().describe('One entry of the file’s contents instead of the file'),
});
export type TCreateDownloadLink = z.infer<typeof ZCreateDownloadLink>;

export const ZDownloadLink = z.object({
  url: z.string().describe('Absolute path on this host; GET it without an Authorization header'),
  expires_at: z.string().describe('The download must start before this'),
});
export type TDownloadLink = z.infer<typeof ZDownloadLink>;

export const ZDownloadSettings = z.object({
  in_page_max_bytes: z.number().int().describe('Files up to this size are read by the page (progress shown); larger ones, and folders, go through a download link'),
});
export type TDownloadSettings = z.infer<typeof ZDownloadSettings>;
