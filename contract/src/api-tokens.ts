// Personal API tokens (issue 37, item 1): a script's credential, made by a signed-in user, limited
// in time, in what it may do (its scope) and optionally in which projects it reaches. The secret is
// answered once, at creation; the portal keeps only its hash.
import { z } from './zod.js';
import { oneOf, trimmedName } from './fields.js';

/** 'read': look and download; 'upload': that, and send files (uploads, deliveries, STOW-RS). */
export const API_TOKEN_SCOPES = ['read', 'upload'] as const;
export type TApiTokenScope = (typeof API_TOKEN_SCOPES)[number];

/** Every token's secret starts so, so that secret scanners (and people) recognise one. */
export const API_TOKEN_PREFIX = 'pup_';
/** The longest a token may live, and what the web app offers first. */
export const API_TOKEN_MAX_DAYS = 365;
export const API_TOKEN_DEFAULT_DAYS = 90;
export const API_TOKEN_PROJECTS_MAX = 100;

export const ZApiToken = z.object({
  id: z.number().int(),
  name: z.string(),
  scope: z.enum(API_TOKEN_SCOPES),
  projects: z
    .array(z.object({ id: z.number().int(), name: z.string() }))
    .nullable()
    .describe('The only projects it reaches; null: every project its owner may reach'),
  created_at: z.string(),
  expires_at: z.string(),
  last_used_at: z.string().nullable().describe('When it was last used (to the minute); null: never'),
  last_used_ip: z.string().nullable().describe('The address it was last used from'),
  user: z.object({ id: z.number().int(), username: z.string(), company_id: z.number().int() }).describe('Whose token it is'),
});
export type TApiToken = z.infer<typeof ZApiToken>;

/** The answer to its creation, the only one that carries the secret. */
export const ZCreatedApiToken = ZApiToken.extend({
  token: z.string().describe('The secret (pup_…), sent as `Authorization: Bearer <token>`: shown this once, never again'),
});
export type TCreatedApiToken = z.infer<typeof ZCreatedApiToken>;

export const ZCreateApiToken = z.strictObject({
  name: trimmedName('The name'),
  expires_at: z
    .string()
    .trim()
    .min(1, { error: 'The expiry date is required' })
    .describe(`A date (YYYY-MM-DD, the token works through that day, UTC) or a date and time; at most ${API_TOKEN_MAX_DAYS} days ahead`),
  scope: z.enum(API_TOKEN_SCOPES, { error: `The scope must be ${API_TOKEN_SCOPES.join(' or ')}` }),
  projects: z
    .array(z.number().int().positive(), { error: 'The projects must be a list of project ids' })
    .max(API_TOKEN_PROJECTS_MAX, { error: `At most ${API_TOKEN_PROJECTS_MAX} projects` })
    .optional()
    .describe('Only these projects (of the projects its owner may read); left out: every project its owner may reach'),
});
export type TCreateApiToken = z.input<typeof ZCreateApiToken>;

export const API_TOKEN_OWNERS = ['me', 'all'] as const;
export const ZApiTokensQuery = z.object({
  owner: oneOf(API_TOKEN_OWNERS, `owner must be ${API_TOKEN_OWNERS.join(' or ')}`)
    .optional()
    .describe('me (the default): one’s own tokens; all: a CompanyAdmin’s company’s, a SysAdmin’s everyone’s'),
});
