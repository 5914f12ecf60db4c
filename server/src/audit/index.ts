// What other features may use of the audit trail: record an action, and the request's context.
export { AuditTrail, presentAuditRow, type AuditAction, type AuditEvent } from './audit.service.js';
export type { AuditFilter } from './audit.repository.js';
export { runWithAuditContext, type AuditActor, type AuditContext } from './audit-context.js';
