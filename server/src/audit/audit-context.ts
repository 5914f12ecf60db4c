// Who is acting and from where, for the audit rows written while a request runs: set once per
// request (app.ts) so services record an action without being handed the request.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface AuditActor {
  id: number | null;
  /** The username, or 'cli' for the admin command line. */
  name: string | null;
  companyId: number | null;
}

export interface AuditContext {
  actor: AuditActor | null;
  ip: string | null;
  userAgent: string | null;
}

const storage = new AsyncLocalStorage<AuditContext>();

export function runWithAuditContext<T>(context: AuditContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentAuditContext(): AuditContext {
  return storage.getStore() ?? { actor: null, ip: null, userAgent: null };
}
