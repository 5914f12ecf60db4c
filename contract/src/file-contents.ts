// What processing found in one upload: one row per entry of the archive (or the file itself).
import { z } from './zod.js';

export const ZEntryKind = z.enum(['dicom', 'other', 'skipped']);
export type TEntryKind = z.infer<typeof ZEntryKind>;

export const ZDicomFields = z.object({
  sop_instance_uid: z.string().nullable(),
  sop_class_uid: z.string().nullable(),
  study_instance_uid: z.string().nullable(),
  series_instance_uid: z.string().nullable(),
  modality: z.string().nullable(),
  study_date: z.string().nullable(),
  study_description: z.string().nullable(),
  series_description: z.string().nullable(),
  transfer_syntax_uid: z.string().nullable(),
  rows: z.number().int().nullable(),
  columns: z.number().int().nullable(),
  /**
   * NumberOfFrames (0028,0008), an IS: a number when it is an integer, else the text as written
   * ('1A'), as dcmtk shows it; null when absent or empty.
   */
  // null made part of the number, not of the union: OpenAPI 3.0 has `nullable` only beside a `type`.
  number_of_frames: z.union([z.number().int().nullable(), z.string()]),
  /** PatientName (0010,0010) as written, a PN value: 'Doe^John', component groups split by '='. */
  patient_name: z.string().nullable(),
  patient_id: z.string().nullable(),
  // What a DICOMweb search answers (server migration 027). Optional: a job payload written before
  // them lacks them; the contents view does not show them.
  accession_number: z.string().nullable().optional(),
  study_time: z.string().nullable().optional(),
  study_id: z.string().nullable().optional(),
  referring_physician_name: z.string().nullable().optional(),
  patient_birth_date: z.string().nullable().optional(),
  patient_sex: z.string().nullable().optional(),
  series_number: z.number().int().nullable().optional(),
  instance_number: z.number().int().nullable().optional(),
});
export type TDicomFields = z.infer<typeof ZDicomFields>;

export const ZFileEntry = z.object({
  id: z.number().int(),
  path: z.string(),
  size: z.number().int(),
  sha256: z.string().nullable(),
  kind: ZEntryKind,
  /** Why an entry was skipped, or why a DICOM-looking entry could not be read. */
  reason: z.string().nullable(),
  dicom: ZDicomFields.nullable(),
  /** Why a person should look at this instance's pixels (from the file's de-identification report), or null. */
  needs_review_reason: z.string().nullable(),
  scan: z
    .object({ status: z.enum(['not_scanned', 'clean', 'infected']), signature: z.string().nullable() })
    .describe("The entry's virus scan (issue 37): 'not_scanned' when it was not (no scanner, no bytes kept, or the scanner could not read it)"),
});
export type TFileEntry = z.infer<typeof ZFileEntry>;

export const ZSeriesNode = z.object({
  series_instance_uid: z.string(),
  modality: z.string().nullable(),
  series_description: z.string().nullable(),
  instances: z.number().int(),
});
export const ZStudyNode = z.object({
  study_instance_uid: z.string(),
  study_date: z.string().nullable(),
  study_description: z.string().nullable(),
  series: z.array(ZSeriesNode),
});
export type TStudyNode = z.infer<typeof ZStudyNode>;

/** GET /study-petitions-files/{fileId}/contents?offset=&limit=&kind=&review= (flagged entries first) */
export const ZFileContents = z.object({
  entries: z.array(ZFileEntry),
  page: z.object({ offset: z.number().int(), limit: z.number().int(), total: z.number().int() }),
  studies: z.array(ZStudyNode),
});
export type TFileContents = z.infer<typeof ZFileContents>;
/** The contents travel wrapped in {data} like every other answer; this is the only shape sent. */
export const ZFileContentsResponse = z.object({ data: ZFileContents });
export type TFileContentsResponse = z.infer<typeof ZFileContentsResponse>;
