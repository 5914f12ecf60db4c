// A file's review (issue 35), as every file answer of GET /study-petitions-files carries it: where
// the file stands beside its processing status, why it was rejected, what replaced it, and the
// project's arrival rules as they judged it when processing ended. Apart from review.ts (the rules,
// the decision and the inbox), which builds on the file's shape: files.ts imports this one.
import { z } from './zod.js';

/** null while processing (or when processing failed: there is nothing to review). */
export const REVIEW_STATES = ['awaiting_review', 'needs_attention', 'accepted', 'rejected', 'replaced'] as const;
export const ZReviewState = z.enum(REVIEW_STATES);
export type TReviewState = z.infer<typeof ZReviewState>;

/** What a person reads for each state (the files table, the inbox). */
export const REVIEW_STATE_LABELS: Record<TReviewState, string> = {
  awaiting_review: 'Awaiting review',
  needs_attention: 'Needs attention',
  accepted: 'Accepted',
  rejected: 'Rejected',
  replaced: 'Replaced',
};

/** The short list a rejection's reason is chosen from; the reviewer adds free text. */
export const REJECT_REASONS = ['wrong_patient', 'wrong_study', 'missing_series', 'poor_quality', 'identity_not_removed', 'other'] as const;
export const ZRejectReason = z.enum(REJECT_REASONS, { error: `reason.code must be one of ${REJECT_REASONS.join(', ')}` });
export type TRejectReason = z.infer<typeof ZRejectReason>;

export const REJECT_REASON_LABELS: Record<TRejectReason, string> = {
  wrong_patient: 'Wrong patient',
  wrong_study: 'Wrong study',
  missing_series: 'Series missing',
  poor_quality: 'Images unusable',
  identity_not_removed: 'Patient identity not removed',
  other: 'Other',
};

/** The arrival rules, by name (review.ts describes each). */
export const RULE_NAMES = [
  'modalities',
  'patients_per_upload',
  'required_series',
  'study_dates',
  'one_patient_per_study',
  'consistent_patients',
  'no_conflicting_instances',
  'deidentified',
] as const;
export const ZRuleName = z.enum(RULE_NAMES);
export type TRuleName = z.infer<typeof ZRuleName>;

export const ZRuleOutcome = z.object({
  rule: ZRuleName,
  ok: z.boolean(),
  message: z.string().describe('A sentence: what passed, or which series or files are at fault'),
});
export type TRuleOutcome = z.infer<typeof ZRuleOutcome>;

export const ZFileReview = z.object({
  state: ZReviewState.nullable()
    // OpenAPI 3.0's nullable does not add null to an enum's values: the document lists it.
    .meta({ enum: [...REVIEW_STATES, null] })
    .describe('null while processing, or when processing failed'),
  reason: z
    .object({ code: ZRejectReason, text: z.string().describe('The reviewer’s own words (may be empty)') })
    .nullable()
    .describe('Why it was rejected; null unless rejected or replaced'),
  replaced_by: z.number().int().nullable().describe('The file that replaced this rejected one'),
  replaces: z.number().int().nullable().describe('The rejected file this one replaces'),
  rules: z.array(ZRuleOutcome).describe('Each rule of the project as it judged this file when processing ended; empty before'),
});
export type TFileReview = z.infer<typeof ZFileReview>;

const STATES_MESSAGE = `must be one or more of ${REVIEW_STATES.join(', ')}, separated by commas`;
/** A query parameter: one review state or several, comma-separated ('rejected,replaced'). */
export const ZReviewStateFilter = z
  .custom<string>((value) => typeof value === 'string' && value.split(',').every((s) => (REVIEW_STATES as readonly string[]).includes(s.trim())), {
    error: STATES_MESSAGE,
  })
  .transform((value) => [...new Set(value.split(',').map((s) => s.trim()))] as TReviewState[])
  .meta({ type: 'string', example: 'awaiting_review,needs_attention', description: `${REVIEW_STATES.join(', ')}, or several separated by commas` });
