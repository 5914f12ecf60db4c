// Users: who signs in (their role decides what they may do), and how administrators manage them
// (issue 15: SysAdmin everything, CompanyAdmin their own company's users, roles 1–2).
import { z } from './zod.js';
import { listParams, ZListPage } from './common.js';
import { trimmedName } from './fields.js';

export const ROLES = { User: 1, CompanyAdmin: 2, SysUser: 3, SysAdmin: 4 } as const;
export const ZRole = z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]);
export type TRole = z.infer<typeof ZRole>;

export const ZUser = z.object({
  id: z.number().int(),
  username: z.string(),
  firstname: z.string(),
  lastname: z.string(),
  role: ZRole,
  company_id: z.number().int(),
});
export type TUser = z.infer<typeof ZUser>;

export const ZAdminUser = ZUser.extend({
  email: z.string().nullable(),
  disabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TAdminUser = z.infer<typeof ZAdminUser>;

const email = z.email({ error: 'must be an e-mail address' }).max(255);

export const ZCreateUser = z.strictObject({
  company_id: z.number().int().positive().optional().describe('SysAdmin only; a CompanyAdmin creates users of their own company'),
  username: z.string().regex(/^[\p{L}\p{N}._@+-]{1,255}$/u, { error: 'may hold letters, digits and . _ @ + - only (at most 255)' }),
  firstname: trimmedName('The first name'),
  lastname: trimmedName('The last name'),
  role: ZRole,
  email: email.nullable().optional(),
  password: z.string().max(1024).optional().describe('Optional: without one, create a reset link for the user to choose theirs'),
});
export type TCreateUser = z.infer<typeof ZCreateUser>;

export const ZUpdateUser = z.strictObject({
  firstname: trimmedName('The first name').optional(),
  lastname: trimmedName('The last name').optional(),
  role: ZRole.optional(),
  email: email.nullable().optional(),
  disabled: z.boolean().optional().describe('true signs the user out everywhere and refuses their sign-in'),
});
export type TUpdateUser = z.infer<typeof ZUpdateUser>;

/** GET /admin/users; the server adds `company_id` (SysAdmin) with its id rules. */
export const ZUsersQuery = z.object(listParams);
export const ZUsersList = z.object({ data: z.array(ZAdminUser), page: ZListPage });
