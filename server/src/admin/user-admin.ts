// Creating users and setting passwords, shared by the admin CLI and the first-start bootstrap.
import type { TRole } from '@portal/contract';
import { assertStrongPassword, hashPassword } from '../auth/index.js';
import { nowIso } from '../db/database.js';
import type { UserRow } from '../db/schema.js';
import { conflict, notFound, unprocessable } from '../errors/app-error.js';
import type { Services } from '../services.js';

export interface NewUserInput {
  companyId: number;
  username: string;
  password: string;
  firstname: string;
  lastname: string;
  role: TRole;
}

const USERNAME = /^[\p{L}\p{N}._@+-]{1,255}$/u;

export async function createUser(services: Services, input: NewUserInput): Promise<UserRow> {
  const { users, companies } = services.repos;
  if (!USERNAME.test(input.username)) {
    throw unprocessable('The username may hold letters, digits and . _ @ + - only (at most 255)');
  }
  if (!input.firstname.trim() || !input.lastname.trim()) throw unprocessable('First and last name are required');
  assertStrongPassword(input.password);
  if (!(await companies.findById(input.companyId, 'all'))) throw notFound(`No company with id ${input.companyId}`);
  if (await users.findByUsername(input.username)) throw conflict(`The username ${input.username} is taken`);
  return users.create({
    company_id: input.companyId,
    username: input.username,
    password_hash: await hashPassword(input.password),
    firstname: input.firstname.trim(),
    lastname: input.lastname.trim(),
    role: input.role,
  });
}

export async function setPassword(services: Services, username: string, password: string): Promise<void> {
  const user = await services.repos.users.findByUsername(username);
  if (!user) throw notFound(`No user named ${username}`);
  assertStrongPassword(password);
  await services.repos.users.setPasswordHash(user.id, await hashPassword(password));
  await services.repos.sessions.revokeAllForUser(user.id, nowIso());
}

export async function disableUser(services: Services, username: string): Promise<void> {
  const user = await services.repos.users.findByUsername(username);
  if (!user) throw notFound(`No user named ${username}`);
  await services.repos.users.setDisabled(user.id, true);
  await services.repos.sessions.revokeAllForUser(user.id, nowIso());
}
