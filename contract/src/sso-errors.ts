// Zod-free, so the sign-in screen can word a failed company sign-in without loading the contract's
// schemas (import '@portal/contract/sso-errors'; issue 36).
export const SSO_ERRORS = ['not_set_up', 'expired', 'cancelled', 'failed', 'unknown_user', 'disabled', 'unavailable'] as const;
export type TSsoError = (typeof SSO_ERRORS)[number];
