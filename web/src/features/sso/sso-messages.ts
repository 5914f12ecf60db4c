import { SSO_ERRORS, type TSsoError } from '@portal/contract/sso-errors';

/** What the login screen says when a sign-in through the company's provider came back without a session. */
export const SSO_ERROR_MESSAGES: Record<TSsoError, string> = {
  not_set_up: 'Single sign-on is not set up for this company. Sign in with your username and password, or ask your administrator.',
  expired: 'That sign-in took too long or was already used. Please try again.',
  cancelled: 'The sign-in was cancelled or refused at your company’s sign-in page. Please try again.',
  failed: 'Your company’s sign-in could not be confirmed. Please try again, and ask your administrator if it keeps happening.',
  unknown_user: 'Your company account has no access to the portal yet. Ask your administrator to add you.',
  disabled: 'Your account is disabled. Ask your administrator to enable it.',
  unavailable: 'Your company’s sign-in page cannot be reached right now. Please try again later.',
};

export function ssoErrorMessage(reason: string): string {
  return (SSO_ERRORS as readonly string[]).includes(reason) ? SSO_ERROR_MESSAGES[reason as TSsoError] : SSO_ERROR_MESSAGES.failed;
}
