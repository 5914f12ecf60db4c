// Projects (study petitions in the spec's paths): a company's named place for uploads.
import { z } from 'zod';

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
