// A project's files (study-petitions-files): what was uploaded, what processing made of it, and how
// the files table searches, sorts, filters and pages them.
import { z } from './zod.js';
import { listParams, ZListPage } from './common.js';
import { ZDeidentificationReport } from './deidentification-report.js';
import { ZFileReview, ZReviewStateFilter } from './file-review.js';
import { oneOf } from './fields.js';

export const ZProcessingStatus = z.enum(['pending', 'processing', 'ready', 'failed']);
export type TProcessingStatus = z.infer<typeof ZProcessingStatus>;

/**
 * The virus scan (issue 37): 'not_scanned' when no scanner is configured, the file was stored
 * before one was, or the scanner could not read it; never taken for 'clean'.
 */
export const ZScanStatus = z.enum(['not_scanned', 'waiting', 'clean', 'infected']);
export type TScanStatus = z.infer<typeof ZScanStatus>;

export const ZScanState = z.object({
  status: ZScanStatus,
  signature: z.string().nullable().describe("The signature the scanner named ('infected'), or why it was not scanned; otherwise null"),
});
export type TScanState = z.infer<typeof ZScanState>;

export const ZProcessingSummary = z.object({
  studies: z.number().int(),
  series: z.number().int(),
  instances: z.number().int(),
  other: z.number().int(),
  skipped: z.number().int(),
  skipped_reasons: z.record(z.string(), z.number().int()).optional(),
  // Issue 14: every entry counted once, in one of five buckets (in_project is shown apart).
  entries: z.number().int().describe('Every entry seen: instances + duplicates + conflicts + other + unreadable + skipped'),
  duplicates: z.number().int().describe('DICOM instances whose SOP Instance UID, study, series and bytes were already counted in the same upload'),
  conflicts: z
    .number()
    .int()
    .describe('DICOM instances whose SOP Instance UID was already counted in the same upload with another study, series or other bytes (issue 35)'),
  in_project: z
    .number()
    .int()
    .describe("Of this upload's instances, how many another live upload of the project already held when it was processed (not part of the sum)"),
  dicomdirs: z.number().int().describe('DICOMDIR files (media directories), counted within other'),
  unreadable: z.number().int().describe('DICOM files whose header could not be read or that lack a SOP Instance UID'),
  unreadable_reasons: z.record(z.string(), z.number().int()).optional(),
  infected: z
    .number()
    .int()
    .optional()
    .describe('Entries the virus scan found infected (issue 37; not part of the sum); absent when no scanner was configured'),
});
export type TProcessingSummary = z.infer<typeof ZProcessingSummary>;

export const ZProjectFile = z.object({
  id: z.number().int(),
  file: z.string(),
  filesize: z.number().int(),
  studypetitionid: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  sha256: z.string(),
  kind: z.enum(['dicom', 'archive', 'folder']).describe("'folder': a delivery, a folder sent as one unit (its files are its entries)"),
  duplicate_of: z
    .number()
    .int()
    .nullable()
    .describe('The oldest earlier live file of the same project with the same SHA-256 (accepted, but already there), or null'),
  processing: z.object({
    status: ZProcessingStatus,
    error: z.string().nullable(),
    summary: ZProcessingSummary.nullable(),
  }),
  deidentification: ZDeidentificationReport.nullable().describe(
    'What de-identification did to this upload (issue 33); null when the project keeps identity as sent (profile off)',
  ),
  scan: ZScanState.describe('The virus scan of the file as stored and of every entry processing found in it (issue 37)'),
  review: ZFileReview.describe('Its review (issue 35): the state beside the processing status, the reason of a rejection, the rules’ outcomes'),
});
export type TProjectFile = z.infer<typeof ZProjectFile>;

/** Columns of the files table the server sorts by; without `sort`, newest first. */
export const FILE_SORT_KEYS = ['file', 'filesize', 'created_at', 'updated_at'] as const;
export const ZFileSort = oneOf(FILE_SORT_KEYS, `must be one of ${FILE_SORT_KEYS.join(', ')}`);
export type TFileSort = z.infer<typeof ZFileSort>;

const STATUSES = ZProcessingStatus.options;
/** One processing status or several, comma-separated ('pending,processing'). */
const STATUS_MESSAGE = `must be one or more of ${STATUSES.join(', ')}, separated by commas`;
export const ZStatusFilter = z
  .custom<string>((value) => typeof value === 'string' && value.split(',').every((s) => (STATUSES as readonly string[]).includes(s.trim())), {
    error: STATUS_MESSAGE,
  })
  .transform((value) => [...new Set(value.split(',').map((s) => s.trim()))] as TProcessingStatus[])
  .meta({ type: 'string', example: 'pending,processing', description: `${STATUSES.join(', ')}, or several separated by commas` });

/**
 * GET /study-petitions-files?study_petition_id=&q=&sort=&order=&status=&page=&per_page=. Without
 * any of the finding parameters the answer is the spec's: every file, newest first, and no `page`.
 * Other parameters are ignored, as they always were here.
 */
export const ZFilesQuery = z.object({
  ...listParams,
  sort: ZFileSort.optional(),
  status: ZStatusFilter.optional(),
  review: ZReviewStateFilter.optional().describe('Review states (issue 35), or several separated by commas'),
});
export type TFilesQuery = z.infer<typeof ZFilesQuery>;

export const ZFilesList = z.object({ data: z.array(ZProjectFile), page: ZListPage.optional() });
export type TFilesList = z.infer<typeof ZFilesList>;
