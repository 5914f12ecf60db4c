// What de-identification did to one upload (issue 33, item 5): the outcome the server records on
// the file when it checks its instances, shown as stored (snake_case). Null for a file of a
// project whose profile is `off`, and for files processed before the outcome was recorded.
import { z } from './zod.js';
import { ZDeidentificationOption } from './deidentification.js';

const count = z.number().int().min(0);

export const ZDeidentificationReviewItem = z.object({
  path: z.string().describe('The entry’s path in the upload (the file name for a single DICOM file)'),
  sop_instance_uid: z.string().describe('The SOP Instance UID as stored (the replaced one, unless the project retains UIDs)'),
  reason: z.string().describe('Why a person should look at the pixels: identity may be burned into them'),
});
export type TDeidentificationReviewItem = z.infer<typeof ZDeidentificationReviewItem>;

export const ZDeidentificationReport = z.object({
  profile: z.literal('basic').describe('The profile the upload was de-identified with'),
  options: z.array(ZDeidentificationOption),
  edition: z.string().describe('The edition of PS3.15 whose Table E.1-1 was applied'),
  deidentified_by: z.enum(['browser', 'server', 'both', 'none']).describe('Who removed the identity of the instances kept'),
  instances: z.object({
    browser: count.describe('Instances that arrived already de-identified by the sender’s browser'),
    server: count.describe('Instances the server de-identified'),
    refused: count.describe('Instances not kept: they could not be read well enough to be de-identified'),
  }),
  counts: z.object({
    removed: count,
    replaced: count,
    shifted: count,
    cleaned: count,
    private_removed: count,
    uids_replaced: count,
  }),
  needs_review: z
    .array(ZDeidentificationReviewItem)
    .describe('Instances that may show identity burned into their pixels (the first 500)'),
  needs_review_total: count.describe('How many instances need review, listed or not'),
});
export type TDeidentificationReport = z.infer<typeof ZDeidentificationReport>;
