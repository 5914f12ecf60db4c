// Creating users and setting passwords, shared by the admin CLI, the admin API and the first-start bootstrap.
import type { TRole } from '@portal/contract';
import { assertStrongPassword } from '../auth/index.js';
import { nowIso } from '../db/database.js';
import type { UserRow } from '../db/schema.js';
import { conflict, notFound, unprocessable } from '../errors/app-error.js';
import type { Services } from '../services.js';

export interface NewUserInput {
  companyId: number;
  username: string;
  /** Without one the user cannot sign in until they set theirs with a reset link. */
  password: string | undefined;
  firstname: string;
  lastname: string;
  role: TRole;
  email?: string | null | undefined;
}

const USERNAME = /^[\p{L}\p{N}._@+-]{1,255}$/u;
/** Not an argon2 hash: no password verifies against it. */
const NO_PASSWORD = '!';

export async function createUser(services: Services, input: NewUserInput): Promise<UserRow> {
  const { users, companies } = services.repos;
  if (!USERNAME.test(input.username)) {
    throw unprocessable('The username may hold letters, digits and . _ @ + - only (at most 255)');
  }
  if (!input.firstname.trim() || !input.lastname.trim()) throw unprocessable('First and last name are required');
  if (input.password !== undefined) assertStrongPassword(input.password);
  if (!(await companies.findById(input.companyId, 'all'))) throw notFound(`No company with id ${input.companyId}`);
  if (await users.findByUsername(input.username)) throw conflict(`The username ${input.username} is taken`);
  const user = await users.create({
    company_id: input.companyId,
    username: input.username,
    password_hash: input.password === undefined ? NO_PASSWORD : await services.passwords.hash(input.password),
    firstname: input.firstname.trim(),
    lastname: input.lastname.trim(),
    role: input.role,
    email: input.email ?? null,
  });
  await services.audit.record({
    action: 'user.created',
    companyId: user.company_id,
    object: { type: 'user', id: user.id },
    details: { username: user.username, role: user.role },
  });
  return user;
}

export async function setPassword(services: Services, username: string, password: string): Promise<void> {
  const user = await services.repos.users.findByUsername(username);
  if (!user) throw notFound(`No user named ${username}`);
  assertStrongPassword(password);
  await services.repos.users.setPasswordHash(user.id, await services.passwords.hash(password));
  await services.repos.sessions.revokeAllForUser(user.id, nowIso());
  await services.audit.record({ action: 'password.changed', companyId: user.company_id, object: { type: 'user', id: user.id }, details: { username: user.username } });
}

/** Disables or enables a user; disabling signs them out everywhere. */
export async function setDisabled(services: Services, user: UserRow, disabled: boolean): Promise<void> {
  await services.repos.users.setDisabled(user.id, disabled);
  if (disabled) await services.repos.sessions.revokeAllForUser(user.id, nowIso());
  await services.audit.record({
    action: disabled ? 'user.disabled' : 'user.enabled',
    companyId: user.company_id,
    object: { type: 'user', id: user.id },
    details: { username: user.username },
  });
}

export async function disableUser(services: Services, username: string): Promise<void> {
  const user = await services.repos.users.findByUsername(username);
  if (!user) throw notFound(`No user named ${username}`);
  await setDisabled(services, user, true);
}

export async function createCompany(services: Services, name: string) {
  const company = await services.repos.companies.create(name, services.allowance.quotas.defaultQuotaBytes);
  await services.audit.record({ action: 'company.created', companyId: company.id, object: { type: 'company', id: company.id }, details: { name } });
  return company;
}
