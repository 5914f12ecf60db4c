// The project's studies (issue 14, item 5): every live upload's DICOM instances, each counted once.
import { z } from './zod.js';
import { listParams, ZListPage } from './common.js';
import { oneOf } from './fields.js';

export const STUDY_SORT_KEYS = ['study_date', 'study_description', 'patient_name', 'instances'] as const;
export const ZStudySort = oneOf(STUDY_SORT_KEYS, `must be one of ${STUDY_SORT_KEYS.join(', ')}`);
export type TStudySort = z.infer<typeof ZStudySort>;

/** GET /study-petitions/{id}/studies?q=&sort=&order=&page=&per_page= */
export const ZStudiesQuery = z.strictObject({ ...listParams, sort: ZStudySort.optional() });
export type TStudiesQuery = z.infer<typeof ZStudiesQuery>;

export const ZProjectStudySeries = z.object({
  series_instance_uid: z.string(),
  modality: z.string().nullable(),
  series_description: z.string().nullable(),
  instances: z.number().int(),
});

export const ZProjectStudy = z.object({
  study_instance_uid: z.string(),
  /** PatientName formatted for reading: 'Doe, John' from 'Doe^John' (docs/api.md). */
  patient_name: z.string().nullable(),
  patient_id: z.string().nullable(),
  /** As stored, YYYYMMDD. */
  study_date: z.string().nullable(),
  study_description: z.string().nullable(),
  modalities: z.array(z.string()),
  series: z.array(ZProjectStudySeries),
  /** Distinct SOP Instance UIDs: an instance found in two uploads counts once. */
  instances: z.number().int(),
  /** The live uploads holding instances of the study. */
  sources: z.array(z.object({ file_id: z.number().int(), file: z.string() })),
});
export type TProjectStudy = z.infer<typeof ZProjectStudy>;

export const ZProjectStudies = z.object({ data: z.array(ZProjectStudy), page: ZListPage });
export type TProjectStudies = z.infer<typeof ZProjectStudies>;
