// On first start with no users: create the first SysAdmin from ADMIN_USERNAME/ADMIN_PASSWORD,
// or say how to create one.
import { ROLES } from '@portal/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/config.js';
import type { Services } from '../services.js';
import { adminCommandFor } from './database-words.js';
import { createCompany, createUser } from './user-admin.js';

/** The steps, with the settings that reach this server's database, so they work from any folder. */
function firstAdminHint(config: Pick<Config, 'dataDir' | 'databaseUrl'>): string {
  const { prefix, note } = adminCommandFor(config);
  return `
No users exist yet. Create the first SysAdmin, in another terminal${note ? `, ${note}` : ''}:

  ${prefix} create-company --name "Your Company"
  ${prefix} create-user --company-id 1 --username admin --firstname Ada --lastname Admin --role SysAdmin

(the second command asks for the password; 1 is the id the first one printed)
or stop the portal and start it once with ADMIN_USERNAME and ADMIN_PASSWORD set.

`;
}

export async function bootstrapFirstAdmin(
  services: Services,
  config: Pick<Config, 'bootstrapAdmin' | 'dataDir' | 'databaseUrl'>,
  log: FastifyBaseLogger,
): Promise<void> {
  if ((await services.repos.users.count()) > 0) return;
  const admin = config.bootstrapAdmin;
  if (!admin) {
    log.warn('no users exist yet: create the first SysAdmin (the steps are printed on standard error)');
    // Plain lines, not a log record: the person starting the portal for the first time reads them.
    process.stderr.write(firstAdminHint(config));
    return;
  }
  const company = await createCompany(services, admin.company);
  await createUser(services, {
    companyId: company.id,
    username: admin.username,
    password: admin.password,
    firstname: 'System',
    lastname: 'Administrator',
    role: ROLES.SysAdmin,
  });
  log.info({ username: admin.username, companyId: company.id }, 'created the first SysAdmin from ADMIN_USERNAME');
}
