// Passwords: the spec §5 rules, changing one's own, reset links an administrator creates, and the
// requests 'Forgot your password?' leaves for them.
import { z } from './zod.js';
import { listParams, listResponse, ZListPage } from './common.js';
import { oneOf } from './fields.js';

/** Spec §5: the characters that count as "special" in a new password. */
export const PASSWORD_SPECIALS = '!@#$%^&*()_+-=[]{};\':"\\|,.<>/?`~';

export interface PasswordChecks {
  length: boolean;
  uppercase: boolean;
  lowercase: boolean;
  number: boolean;
  special: boolean;
}

export function checkPassword(password: string): PasswordChecks {
  return {
    length: password.length >= 8,
    uppercase: /[A-Z]/.test(password),
    lowercase: /[a-z]/.test(password),
    number: /[0-9]/.test(password),
    special: [...password].some((c) => PASSWORD_SPECIALS.includes(c)),
  };
}

export function passwordIsValid(password: string): boolean {
  return Object.values(checkPassword(password)).every(Boolean);
}

/** Spec §5: the rules as the live checklist shows them, in its order (the admin CLI names the ones broken). */
export const PASSWORD_RULES: ReadonlyArray<{ key: keyof PasswordChecks; label: string }> = [
  { key: 'length', label: 'Minimum 8 characters' },
  { key: 'uppercase', label: 'One uppercase letter' },
  { key: 'lowercase', label: 'One lowercase letter' },
  { key: 'number', label: 'One number' },
  { key: 'special', label: 'One special character (!@#$%^&*)' },
];

/** The labels of the rules `password` breaks, in the checklist's order; empty when it is strong. */
export function brokenPasswordRules(password: string): string[] {
  const checks = checkPassword(password);
  return PASSWORD_RULES.filter(({ key }) => !checks[key]).map(({ label }) => label);
}

export const ZPasswordResetRequest = z.strictObject({
  userid: z.number().int().positive(),
  old_password: z.string().max(1024),
  new_password: z.string().max(1024),
});
export type TPasswordResetRequest = z.infer<typeof ZPasswordResetRequest>;
export const ZPasswordResetResponse = z.object({ data: z.object({ message: z.string() }) });

export const ZResetLink = z.object({
  reset_url: z.string().describe('Shown once: the link holds the only copy of its secret'),
  expires_at: z.string(),
});
export const ZResetLinkResponse = listResponse(ZResetLink);

/** POST /password/set: the secret of a reset link and the new password (spec §5 rules). */
export const ZPasswordSetRequest = z.strictObject({ token: z.string().max(200), new_password: z.string().max(1024) });
export type TPasswordSetRequest = z.infer<typeof ZPasswordSetRequest>;
/**
 * POST /password/link: what a reset link is for, asked when its page opens (issue 36) so the page
 * names the account and reports a used or expired link before a password is typed. The secret
 * travels in the body, never in a URL that logs keep.
 */
export const ZPasswordLinkRequest = z.strictObject({ token: z.string().max(200) });
export const ZPasswordLinkResponse = z.object({
  data: z.object({ username: z.string(), firstname: z.string(), expires_at: z.string() }),
});
export type TPasswordLinkResponse = z.infer<typeof ZPasswordLinkResponse>;
/** POST /password/forgot: answered the same whatever the username. */
export const ZPasswordForgotRequest = z.strictObject({ username: z.string().max(255) });
export const FORGOT_PASSWORD_MESSAGE = 'If the account exists, your administrator has been notified';

export const ZPasswordRequest = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  username: z.string(),
  firstname: z.string(),
  lastname: z.string(),
  company_id: z.number().int(),
  created_at: z.string(),
  resolved_at: z.string().nullable(),
});
export const ZPasswordRequestsQuery = z.object({ ...listParams, status: oneOf(['open', 'resolved', 'all'], 'must be open, resolved or all').optional() });
export const ZPasswordRequestsList = z.object({ data: z.array(ZPasswordRequest), page: ZListPage });
