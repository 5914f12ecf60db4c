// On first start with no users: create the first SysAdmin from ADMIN_USERNAME/ADMIN_PASSWORD,
// or say how to create one.
import { ROLES } from '@portal/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/config.js';
import type { Services } from '../services.js';
import { createUser } from './user-admin.js';

export async function bootstrapFirstAdmin(
  services: Services,
  config: Pick<Config, 'bootstrapAdmin'>,
  log: FastifyBaseLogger,
): Promise<void> {
  if ((await services.repos.users.count()) > 0) return;
  const admin = config.bootstrapAdmin;
  if (!admin) {
    log.warn(
      'No users exist yet. Create the first SysAdmin with:\n' +
        '  npm run admin -- create-company --name "Your Company"\n' +
        '  npm run admin -- create-user --company-id <id printed above> --username admin --password <password> ' +
        '--firstname Ada --lastname Admin --role SysAdmin\n' +
        'or start the server once with ADMIN_USERNAME and ADMIN_PASSWORD set.',
    );
    return;
  }
  const company = await services.repos.companies.create(admin.company);
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
