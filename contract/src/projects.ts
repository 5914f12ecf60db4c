// Projects (study petitions in the spec's paths): a company's named place for uploads.
import { z } from './zod.js';
import { listParams, ZListPage } from './common.js';
import { oneOf } from './fields.js';

export const ZProject = z.object({
  id: z.number().int(),
  name: z.string(),
  valid: z.boolean(),
  status: z.string(),
  company_id: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TProject = z.infer<typeof ZProject>;

export const PROJECT_NAME_REQUIRED = 'The name of the study is required';
export const PROJECT_NAME_MAX = 255;
export const PROJECT_NAME_TOO_LONG = `The name of the study must be at most ${PROJECT_NAME_MAX} characters`;

/** The trimmed name, or the message that refuses it (the server answers it with 422). */
export function checkProjectName(name: string): { name: string } | { error: string } {
  const trimmed = name.trim();
  if (!trimmed) return { error: PROJECT_NAME_REQUIRED };
  if ([...trimmed].length > PROJECT_NAME_MAX) return { error: PROJECT_NAME_TOO_LONG };
  return { name: trimmed };
}

/** POST /study-petitions: spec §7 sends {name, valid: true, status: 'Pendant'}. */
export const ZCreateProject = z.strictObject({
  name: z.string().max(10_000),
  valid: z.literal(true).optional(),
  status: z.literal('Pendant').optional(),
});
export type TCreateProject = z.infer<typeof ZCreateProject>;

/** PUT /study-petitions/{id}: the client sends the project back; only its name can change. */
export const ZUpdateProject = z.strictObject({
  name: z.string().max(10_000),
  id: z.number().int().optional(),
  valid: z.boolean().optional(),
  status: z.string().max(50).optional(),
  company_id: z.number().int().optional(),
  created_at: z.string().max(64).optional(),
  updated_at: z.string().max(64).optional(),
});
export type TUpdateProject = z.infer<typeof ZUpdateProject>;

/**
 * Columns of the projects list the server sorts by (issue 36, item 4); without `sort`, newest
 * first. `company` sorts by the company's name.
 */
export const PROJECT_SORT_KEYS = ['name', 'created_at', 'updated_at', 'files', 'studies', 'last_upload_at', 'company'] as const;
export const ZProjectSort = oneOf(PROJECT_SORT_KEYS, `must be one of ${PROJECT_SORT_KEYS.join(', ')}`);
export type TProjectSort = z.infer<typeof ZProjectSort>;

/**
 * GET /study-petitions?q=&sort=&order=&page=&per_page= (and company_id, which the server adds).
 * Without q, sort, order, page and per_page the answer is the spec's: every project, newest first,
 * and no `page`.
 */
export const ZProjectsQuery = z.object({
  ...listParams,
  sort: ZProjectSort.optional(),
});
export type TProjectsQuery = z.infer<typeof ZProjectsQuery>;

/** A project as the projects list shows it: the spec's fields and, as additions, its counts and company. */
export const ZListedProject = ZProject.extend({
  companyname: z.string().describe('The name of the company the project belongs to'),
  files: z.number().int().describe('Live uploads of the project (the rows of its files table)'),
  studies: z.number().int().describe('Distinct DICOM studies across its live uploads, as the Studies view counts them'),
  last_upload_at: z.string().nullable().describe('When its newest live upload arrived; null when it has none'),
});
export type TListedProject = z.infer<typeof ZListedProject>;

export const ZProjectsList = z.object({ data: z.array(ZListedProject), page: ZListPage.optional() });
export type TProjectsList = z.infer<typeof ZProjectsList>;

/** GET /study-petitions-companies: the companies whose projects the caller sees, to filter the list by. */
export const ZProjectCompany = z.object({ id: z.number().int(), companyname: z.string() });
export type TProjectCompany = z.infer<typeof ZProjectCompany>;
