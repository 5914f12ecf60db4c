// Single sign-on with OpenID Connect per company (issue 15): its settings as a SysAdmin sees and
// sets them, and what the login screen asks and is told.
import { z } from './zod.js';

/** An issuer is an https URL; plain http only on the machine itself (a provider under test). */
export function issuerAllowed(value: string): boolean {
  try {
    const url = new URL(value);
    if (url.search || url.hash || url.username || url.password) return false;
    if (url.protocol === 'https:') return true;
    return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  } catch {
    return false;
  }
}

export const ZSsoSettings = z.object({
  company_id: z.number().int(),
  enabled: z.boolean().describe('Whether the company’s users see ‘Sign in with <company>’'),
  issuer: z.string().nullable(),
  client_id: z.string().nullable(),
  has_secret: z.boolean().describe('Whether a client secret is stored; the secret itself is never answered'),
  password_login_allowed: z.boolean().describe('Whether the company’s users may still sign in with a password'),
  auto_create_users: z.boolean().describe('Whether an unknown user signing in through the provider is created, with role User'),
  redirect_uri: z.string().describe('The address to register at the provider as the client’s redirect URI'),
  login_url: z.string().describe('A link that starts this company’s sign-in directly'),
});
export type TSsoSettings = z.infer<typeof ZSsoSettings>;

export const ZUpdateSsoSettings = z.strictObject({
  enabled: z.boolean(),
  issuer: z
    .string()
    .trim()
    .max(512, { error: 'The issuer must be at most 512 characters' })
    .refine((v) => v === '' || issuerAllowed(v), { error: 'The issuer must be an https address (such as https://login.example.org/realms/hospital)' })
    .describe('May be empty while single sign-on is off'),
  client_id: z.string().trim().max(255, { error: 'The client id must be at most 255 characters' }).describe('May be empty while single sign-on is off'),
  client_secret: z
    .string()
    .min(1, { error: 'The client secret must not be empty' })
    .max(1024, { error: 'The client secret must be at most 1024 characters' })
    .optional()
    .describe('Write-only; leave out to keep the stored one'),
  password_login_allowed: z.boolean(),
  auto_create_users: z.boolean(),
});
export type TUpdateSsoSettings = z.infer<typeof ZUpdateSsoSettings>;

/** POST /sso/discover: which sign-in applies to a typed username. */
export const ZSsoDiscoverRequest = z.strictObject({ username: z.string().max(255) });
export const ZSsoDiscoverResponse = z.object({
  data: z.object({
    sso: z
      .object({
        company_name: z.string(),
        start_url: z.string().describe('Open this (a browser navigation) to sign in through the provider'),
        password_login_allowed: z.boolean(),
      })
      .nullable()
      .describe('null for unknown usernames and for users of companies without single sign-on alike'),
  }),
});
export type TSsoDiscoverResponse = z.infer<typeof ZSsoDiscoverResponse>;

/** POST /sso/complete: the one-time code the provider's return left in the page's fragment. */
export const ZSsoCompleteRequest = z.strictObject({ code: z.string().max(200) });

/** Why a sign-in through a provider did not end in a session, as the login screen's fragment says it. */
export { SSO_ERRORS, type TSsoError } from './sso-errors.js';
