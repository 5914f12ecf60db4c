// POST /deliveries: a folder sent as one unit, filled by tus uploads naming it, then completed.
import { z } from './zod.js';

export const ZCreateDelivery = z.strictObject({
  studypetitionid: z.number().int(),
  name: z.string().max(10_000),
  replaces: z
    .number()
    .int()
    .optional()
    .describe('A rejected file of the same project this delivery answers: once completed, that file becomes replaced (issue 35)'),
});
export type TCreateDelivery = z.infer<typeof ZCreateDelivery>;

export const ZDeliveryStatus = z.enum(['open', 'completed']);

export const ZDelivery = z.object({
  id: z.number().int(),
  name: z.string(),
  status: ZDeliveryStatus,
  studypetitionid: z.number().int(),
  files: z.number().int().describe('Files of the delivery that arrived whole'),
  bytes: z.number().int().describe('Their sizes added up'),
  file_id: z.number().int().nullable().describe('Once completed: its row in GET /study-petitions-files'),
  expires_at: z.string().nullable().describe('While open: when it is removed, with everything in it, unless completed'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TDelivery = z.infer<typeof ZDelivery>;
