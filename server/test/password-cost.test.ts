// Tests hash passwords at a cost of their own (server.ts); this proves a portal composed as the
// server, the worker and the admin CLI compose it (createServices without options) hashes every new
// password at OWASP's argon2id parameters.
import { ROLES } from '@portal/contract';
import { describe, expect, it } from 'vitest';
import { createUser } from '../src/admin/user-admin.js';
import { loadConfig } from '../src/config/config.js';
import { openDatabase } from '../src/db/database.js';
import { createServices } from '../src/services.js';
import { createStorage } from '../src/storage/create-storage.js';
import { createTestDatabase } from './databases.js';
import { makeCompany, PASSWORD } from './factories.js';

describe('the password hashing cost of a portal as it runs', () => {
  it('hashes a new user’s password with argon2id at 19 MiB, two passes and one lane', async () => {
    const database = await createTestDatabase('sqlite', { migrated: true });
    const config = loadConfig({ DATA_DIR: database.dataDir, LOG_LEVEL: 'silent' });
    const handle = openDatabase(config);
    try {
      const services = createServices(handle, config, await createStorage(config));
      const company = await makeCompany(services);
      const user = await createUser(services, { companyId: company.id, username: 'owasp', password: PASSWORD, firstname: 'O', lastname: 'W', role: ROLES.User });
      const stored = await services.repos.users.findById(user.id);
      expect(stored?.password_hash.startsWith('$argon2id$v=19$m=19456,t=2,p=1$')).toBe(true);
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});
