/**
 * Cache keys of the server's resources, in one place because one feature's change invalidates
 * another's queries (an upload on the project page changes the file list the projects tree shows).
 */
export const queryKeys = {
  projects: ['projects'] as const,
  project: (projectId: number) => ['project', projectId] as const,
  projectFiles: (projectId: number) => ['project-files', projectId] as const,
  /** Starts with projectFiles(projectId): invalidating the project's files refreshes every page too. */
  projectFilesPage: (projectId: number, request: object) => ['project-files', projectId, 'page', request] as const,
  // Under the files' key: whatever changes a project's files (an upload, a delete) changes its
  // studies, and invalidating the files' key refreshes both.
  projectStudies: (projectId: number) => ['project-files', projectId, 'studies'] as const,
  fileContents: (fileId: number) => ['file-contents', fileId] as const,
  /** A project's de-identification policy: the project page shows it, the upload dialog follows it. */
  deidentification: (projectId: number) => ['deidentification', projectId] as const,
  /** A project's arrival rules, and the reviewers' inbox (issue 35). */
  reviewRules: (projectId: number) => ['review-rules', projectId] as const,
  reviewInbox: (request: object) => ['review-inbox', request] as const,
  // Administration (issue 15): every list under one root, so a change can refresh what it touches.
  admin: ['admin'] as const,
  adminCompanies: ['admin', 'companies'] as const,
  adminUsers: ['admin', 'users'] as const,
  adminPasswordRequests: ['admin', 'password-requests'] as const,
  adminAudit: ['admin', 'audit'] as const,
  adminWebhooks: ['admin', 'webhooks'] as const,
  /** Personal API tokens (issue 37): one's own ('me'), or those an administrator answers for ('all'). */
  apiTokens: ['api-tokens'] as const,
  apiTokensOf: (owner: 'me' | 'all') => ['api-tokens', owner] as const,
  /** The signed-in user's choice of e-mails (GET /me/notifications). */
  notificationSettings: ['notification-settings'] as const,
  /** The signed-in user's two-factor sign-in (GET /account/two-factor). */
  twoFactor: ['two-factor'] as const,
  /** A company's two-factor requirement (administration). */
  companyTwoFactor: (companyId: number) => ['admin', 'company-two-factor', companyId] as const,
};
