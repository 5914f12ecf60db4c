// Companies and users with sensible defaults, created through the same code the CLI uses.
import { ROLES, type TRole } from '@portal/contract';
import { createUser } from '../src/admin/user-admin.js';
import type { CompanyRow, ProjectRow, UserRow } from '../src/db/schema.js';
import type { Services } from '../src/services.js';

export const PASSWORD = 'Str0ng!Passw0rd';
let counter = 0;

export function makeCompany(services: Services, name?: string): Promise<CompanyRow> {
  counter += 1;
  return services.repos.companies.create(name ?? `Company ${counter}`);
}

export async function makeUser(
  services: Services,
  overrides: { company?: CompanyRow; role?: TRole; username?: string; password?: string } = {},
): Promise<UserRow & { password: string }> {
  counter += 1;
  const company = overrides.company ?? (await makeCompany(services));
  const password = overrides.password ?? PASSWORD;
  const user = await createUser(services, {
    companyId: company.id,
    username: overrides.username ?? `user${counter}_${process.pid}`,
    password,
    firstname: 'Test',
    lastname: `User ${counter}`,
    role: overrides.role ?? ROLES.User,
  });
  return { ...user, password };
}

export async function makeProject(
  services: Services,
  company: CompanyRow,
  name = 'Brain MRI cohort',
): Promise<ProjectRow> {
  const creator = await services.repos.users.list().then((users) => users.find((u) => u.company_id === company.id));
  return services.repos.projects.create({ company_id: company.id, name, created_by: creator?.id ?? null });
}
