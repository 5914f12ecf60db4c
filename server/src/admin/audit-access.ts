// Reading the audit trail: a SysAdmin all of it, a CompanyAdmin their company's rows.
import type { TAuditQuery } from '@portal/contract';
import type { AuditFilter } from '../audit/index.js';
import type { Actor } from '../auth/index.js';
import { isSysAdmin, requireUserAdmin } from './admin-access.js';

export function auditFilter(actor: Actor, query: TAuditQuery): AuditFilter {
  requireUserAdmin(actor);
  const [objectType, objectId] = query.object?.split('/', 2) ?? [];
  const actorIsId = query.actor !== undefined && /^[0-9]{1,10}$/.test(query.actor);
  return {
    scope: isSysAdmin(actor) ? 'all' : actor.companyId,
    from: query.from ? new Date(query.from).toISOString() : undefined,
    to: query.to ? new Date(query.to).toISOString() : undefined,
    actorId: actorIsId ? Number(query.actor) : undefined,
    actorName: query.actor !== undefined && !actorIsId ? query.actor : undefined,
    action: query.action || undefined,
    objectType: objectType || undefined,
    objectId: objectId || undefined,
  };
}
