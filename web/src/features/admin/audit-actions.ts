/**
 * The audit trail's actions in words (docs/api.md lists them), for the Action filter and the rows.
 * A prefix ending in '.' filters a whole family; an action not listed here (a newer server's) is
 * shown and filtered by its code.
 */
export const AUDIT_ACTIONS: ReadonlyArray<{ code: string; label: string }> = [
  { code: 'login.', label: 'Any sign-in event' },
  { code: 'login.success', label: 'Signed in' },
  { code: 'login.failure', label: 'Sign-in refused' },
  { code: 'login.throttled', label: 'Sign-in throttled' },
  { code: 'logout', label: 'Signed out' },
  { code: 'password.', label: 'Any password event' },
  { code: 'password.changed', label: 'Password changed' },
  { code: 'password.reset_link_created', label: 'Password link made' },
  { code: 'password.reset_link_used', label: 'Password link used' },
  { code: 'password.forgot_requested', label: "'Forgot your password?' request" },
  { code: 'user.', label: 'Any user change' },
  { code: 'user.created', label: 'User created' },
  { code: 'user.changed', label: 'User changed' },
  { code: 'user.disabled', label: 'User disabled' },
  { code: 'user.enabled', label: 'User enabled' },
  { code: 'company.', label: 'Any company change' },
  { code: 'company.created', label: 'Company created' },
  { code: 'company.changed', label: 'Company renamed' },
  { code: 'project.', label: 'Any project change' },
  { code: 'project.created', label: 'Project created' },
  { code: 'project.renamed', label: 'Project renamed' },
  { code: 'project.deleted', label: 'Project deleted' },
  { code: 'project.deidentification_changed', label: 'Project de-identification changed' },
  { code: 'project.rules_changed', label: 'Project arrival rules changed' },
  { code: 'upload.completed', label: 'Upload completed' },
  { code: 'file.rules_checked', label: 'Upload checked against the arrival rules' },
  { code: 'file.accepted', label: 'Upload accepted' },
  { code: 'file.rejected', label: 'Upload rejected' },
  { code: 'file.replaced', label: 'Rejected upload replaced' },
  { code: 'file.infected', label: 'Virus found in an upload' },
  { code: 'file.downloaded', label: 'File downloaded' },
  { code: 'entry.downloaded', label: 'Entry of a file downloaded' },
  { code: 'file.deleted', label: 'File deleted' },
  { code: 'delivery.deleted', label: 'Folder delivery deleted' },
  { code: 'file.purged', label: 'Deleted file’s stored bytes removed' },
  { code: 'delivery.purged', label: 'Deleted folder delivery’s stored bytes removed' },
  { code: 'audit.pruned', label: 'Old audit rows removed' },
  { code: 'webhook.', label: 'Any webhook change' },
  { code: 'webhook.created', label: 'Webhook created' },
  { code: 'webhook.deleted', label: 'Webhook deleted' },
  { code: 'api_token.', label: 'Any API token change' },
  { code: 'api_token.created', label: 'API token created' },
  { code: 'api_token.new_address', label: 'API token used from a new address' },
  { code: 'api_token.revoked', label: 'API token revoked' },
  { code: 'two_factor.', label: 'Any two-factor sign-in event' },
  { code: 'two_factor.enabled', label: 'Two-factor sign-in turned on' },
  { code: 'two_factor.disabled', label: 'Two-factor sign-in turned off' },
  { code: 'two_factor.recovery_code_used', label: 'Recovery code used' },
  { code: 'two_factor.recovery_codes_regenerated', label: 'New recovery codes' },
  { code: 'two_factor.reset', label: 'Two-factor sign-in reset' },
];

const LABELS = new Map(AUDIT_ACTIONS.map((a) => [a.code, a.label]));

export function actionLabel(code: string): string {
  return LABELS.get(code) ?? code;
}

/** A row's details as 'key: value' pairs, in the order the server wrote them. */
export function detailsText(details: Record<string, unknown> | null): string {
  if (!details) return '';
  return Object.entries(details)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');
}
