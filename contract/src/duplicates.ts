// POST /study-petitions/{id}/files/duplicates (issue 36, item 3): which of the files about to be
// sent the project already holds, by content, asked before any byte is sent.
import { z } from './zod.js';

/** At most this many hashes per request: a big folder is asked about in several requests. */
export const DUPLICATES_MAX_HASHES = 1000;

const ZSha256Hex = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .describe('SHA-256 of a file’s bytes, 64 lowercase hex digits');

export const ZDuplicatesRequest = z.object({
  sha256: z.array(ZSha256Hex).min(1).max(DUPLICATES_MAX_HASHES).describe(`The hashes of the files about to be sent, 1 to ${DUPLICATES_MAX_HASHES}`),
});
export type TDuplicatesRequest = z.infer<typeof ZDuplicatesRequest>;

export const ZDuplicate = z.object({
  sha256: ZSha256Hex,
  file_id: z.number().int().describe('The oldest live file of the project with these bytes'),
  file: z.string().describe('Its name'),
});
export type TDuplicate = z.infer<typeof ZDuplicate>;
