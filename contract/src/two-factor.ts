// Two-factor sign-in with an authenticator app (TOTP, issue 37 item 3): the answer of POST /login
// when a code is still due, the second step, enrolment, recovery codes, and the company setting.
import { z } from './zod.js';
import { ZErrorBody } from './common.js';
import { ZUser } from './users.js';

/** How many one-time recovery codes an enrolment (or a regeneration) gives. */
export const RECOVERY_CODE_COUNT = 10;

/**
 * POST /login's 401 for a right password when a second step is due. A client that knows nothing of
 * two-factor sign-in sees a refused sign-in, never a session without its second factor.
 */
export const ZLoginRefusal = ZErrorBody.extend({
  second_factor_required: z.literal(true).optional().describe('The password was right; finish with POST /login/second-factor'),
  enrolment_required: z
    .boolean()
    .optional()
    .describe('The company requires two-factor sign-in and the user has not set it up: set it up with POST /login/second-factor/enrolment first'),
  challenge: z.string().optional().describe('Opaque, single-use, short-lived: names this sign-in in the second step'),
  expires_at: z.string().optional().describe('When the challenge stops working'),
});
export type TLoginRefusal = z.infer<typeof ZLoginRefusal>;

export type TSecondFactorDue = Required<TLoginRefusal>;

const code = z
  .string()
  .trim()
  .regex(/^\d{6}$/, { error: 'must be the 6 digits your authenticator app shows' });
const recoveryCode = z.string().trim().min(1, { error: 'is required' }).max(64, { error: 'is not a recovery code' });

export const ZSecondStepRequest = z
  .strictObject({
    challenge: z.string().min(1).max(128),
    code: code.optional().describe('The 6-digit code the authenticator app shows now'),
    recovery_code: recoveryCode.optional().describe('One of the recovery codes shown at enrolment (each works once)'),
  })
  .refine((b) => (b.code === undefined) !== (b.recovery_code === undefined), { error: 'Send either code or recovery_code' });
export type TSecondStepRequest = z.infer<typeof ZSecondStepRequest>;

/** What a new authenticator needs: the secret in text for typing in, and the same as a QR code. */
export const ZTwoFactorSetup = z.object({
  secret: z.string().describe('Base32, for entering by hand; shown once while setting up'),
  otpauth_url: z.string().describe('The otpauth:// address the QR code holds'),
  qr_code: z.string().describe('A data:image/png URL of the QR code'),
});
export type TTwoFactorSetup = z.infer<typeof ZTwoFactorSetup>;

export const ZEnrolmentStartRequest = z.strictObject({ challenge: z.string().min(1).max(128) });
export const ZEnrolmentConfirmAtLoginRequest = z.strictObject({ challenge: z.string().min(1).max(128), code });
export type TEnrolmentConfirmAtLoginRequest = z.infer<typeof ZEnrolmentConfirmAtLoginRequest>;

export const ZRecoveryCodes = z.object({ recovery_codes: z.array(z.string()).describe('Shown this once; each works once') });
export type TRecoveryCodes = z.infer<typeof ZRecoveryCodes>;

/** The mandatory enrolment at sign-in ends signed in, with the recovery codes to keep. */
export const ZLoginWithRecoveryCodes = z.object({ token: z.string(), user: ZUser, recovery_codes: z.array(z.string()) });
export type TLoginWithRecoveryCodes = z.infer<typeof ZLoginWithRecoveryCodes>;

export const ZTwoFactorStatus = z.object({
  enabled: z.boolean(),
  available: z.boolean().describe('false for users who sign in through their company’s identity provider: it decides'),
  required: z.boolean().describe('Whether the user’s company requires it'),
  enabled_at: z.string().nullable(),
  recovery_codes_left: z.number().int(),
});
export type TTwoFactorStatus = z.infer<typeof ZTwoFactorStatus>;

export const ZTwoFactorConfirmRequest = z.strictObject({ code });
export type TTwoFactorConfirmRequest = z.infer<typeof ZTwoFactorConfirmRequest>;

/** Turning it off, or new recovery codes: a current code or the password. */
export const ZTwoFactorProof = z
  .strictObject({
    code: code.optional(),
    password: z.string().min(1).max(1024).optional(),
  })
  .refine((b) => (b.code === undefined) !== (b.password === undefined), { error: 'Send either a current code or your password' });
export type TTwoFactorProof = z.infer<typeof ZTwoFactorProof>;

export const ZCompanyTwoFactor = z.object({
  company_id: z.number().int(),
  required: z.boolean().describe('Whether the company’s password users must sign in with a second factor'),
});
export type TCompanyTwoFactor = z.infer<typeof ZCompanyTwoFactor>;
export const ZUpdateCompanyTwoFactor = z.strictObject({ required: z.boolean() });
export type TUpdateCompanyTwoFactor = z.infer<typeof ZUpdateCompanyTwoFactor>;
