import { checkPassword, passwordIsValid, PASSWORD_RULES } from '@portal/contract';

export interface PasswordChangeForm {
  current: string;
  next: string;
  confirm: string;
}

export const PASSWORDS_DO_NOT_MATCH = 'Passwords do not match';

/** Spec §5's checks without a current password (a reset link): required, the rules, the confirmation. */
export function validateNewPassword({ next, confirm }: Omit<PasswordChangeForm, 'current'>): string | null {
  if (!next || !confirm) return 'All fields are required';
  if (!passwordIsValid(next)) return 'Password does not meet all requirements';
  if (next !== confirm) return PASSWORDS_DO_NOT_MATCH;
  return null;
}

/** Spec §5: the first failing check, in the spec's order, or null when the change may be sent. */
export function validatePasswordChange({ current, next, confirm }: PasswordChangeForm): string | null {
  if (!current) return 'All fields are required';
  const problem = validateNewPassword({ next, confirm });
  if (problem) return problem;
  if (next === current) return 'New password must be different from the current one';
  return null;
}

export { checkPassword, passwordIsValid, PASSWORD_RULES };
