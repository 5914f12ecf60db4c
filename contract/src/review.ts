// Reviewing what arrives (issue 35): a project's arrival rules, a reviewer's decision on a file, and
// the reviewers' inbox across projects. A file's own review (state, reason, outcomes) is
// file-review.ts, which every file answer carries.
import { z } from './zod.js';
import { listParams, ZListPage } from './common.js';
import { ZRejectReason, ZReviewStateFilter } from './file-review.js';
import { ZProjectFile } from './files.js';

const DATE = /^\d{4}-\d\d-\d\d$/;
const date = z
  .string()
  .regex(DATE, { error: 'must be a date written YYYY-MM-DD' })
  .refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)), { error: 'must be a date that exists' });

const modality = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z0-9]{1,16}$/, { error: 'a modality is its DICOM code: letters and digits, at most 16 (CT, MR, US…)' });

export const ZRequiredSeries = z.strictObject({
  modality: modality.describe('The series’ Modality (CT, MR…)'),
  description: z
    .string()
    .trim()
    .max(200, { error: 'a series description pattern must be at most 200 characters' })
    .describe("A pattern of the Series Description, without case: * stands for any text ('*T1*'); empty: any description"),
  min_instances: z.number().int().min(1, { error: 'min_instances must be at least 1' }).max(100_000).describe('The fewest instances the series must hold'),
});
export type TRequiredSeries = z.infer<typeof ZRequiredSeries>;

/** A project's arrival rules, judged on every upload and delivery when its processing ends. */
export const ZReviewRules = z.strictObject({
  modalities: z.array(modality).max(50).describe('The modalities allowed; empty: any'),
  patients_per_upload: z
    .strictObject({
      mode: z.enum(['exactly', 'at_most'], { error: 'patients_per_upload.mode must be exactly or at_most' }),
      count: z.number().int().min(1, { error: 'patients_per_upload.count must be at least 1' }).max(100_000),
    })
    .nullable()
    .describe('How many patients (PatientIDs) one upload or delivery holds; null: any number'),
  required_series: z.array(ZRequiredSeries).max(50).describe('Series every upload must hold'),
  study_dates: z
    .strictObject({ from: date.nullable(), to: date.nullable() })
    .refine((window) => window.from === null || window.to === null || window.from <= window.to, { error: 'study_dates.from must not be after study_dates.to' })
    .nullable()
    .describe('The window every Study Date must fall in (either end may be open); null: any date'),
  one_patient_per_study: z.boolean().describe('A study holds one PatientID'),
  consistent_patients: z.boolean().describe('A PatientID keeps its sex and birth date across the project’s uploads, where they are kept'),
  no_conflicting_instances: z.boolean().describe('No SOP Instance UID repeats with another study, series or other bytes, in the upload or the project'),
  deidentified: z.boolean().describe('Where the project removes patient identity: every instance was de-identified and none may show identity in its pixels'),
});
export type TReviewRules = z.infer<typeof ZReviewRules>;

/** What a project judges before anyone sets its rules: the checks of consistency, no expectations. */
export const DEFAULT_REVIEW_RULES: TReviewRules = {
  modalities: [],
  patients_per_upload: null,
  required_series: [],
  study_dates: null,
  one_patient_per_study: true,
  consistent_patients: true,
  no_conflicting_instances: true,
  deidentified: true,
};

export const ZReviewDecision = z
  .strictObject({
    decision: z.enum(['accept', 'reject'], { error: 'decision must be accept or reject' }),
    reason: z
      .strictObject({
        code: ZRejectReason,
        text: z.string().trim().max(1000, { error: 'reason.text must be at most 1000 characters' }).default(''),
      })
      .optional()
      .describe('Required to reject: a code of the short list and free text'),
  })
  .refine((body) => body.decision === 'accept' || body.reason !== undefined, {
    error: 'A rejection needs a reason: send reason.code (one of the list) and, if you like, reason.text',
    path: ['reason'],
  });
export type TReviewDecision = z.infer<typeof ZReviewDecision>;

/** GET /review: the reviewers' inbox. Without `state`: what is still to review (awaiting_review, needs_attention). */
export const ZReviewQuery = z.object({
  ...listParams,
  state: ZReviewStateFilter.optional(),
});
export type TReviewQuery = z.infer<typeof ZReviewQuery>;

export const ZReviewItem = ZProjectFile.extend({
  project: z.object({ id: z.number().int(), name: z.string() }),
  company: z.object({ id: z.number().int(), name: z.string() }),
});
export type TReviewItem = z.infer<typeof ZReviewItem>;

export const ZReviewList = z.object({ data: z.array(ZReviewItem), page: ZListPage });
export type TReviewList = z.infer<typeof ZReviewList>;
