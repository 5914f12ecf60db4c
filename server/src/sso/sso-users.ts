// The user a first sign-in through a provider creates, from its claims (auto_create_users).
import type { TRole } from '@portal/contract';
import { ROLES } from '@portal/contract';
import type { Identity } from './oidc-client.js';

const USERNAME = /^[\p{L}\p{N}._@+-]{1,255}$/u;

/** The new user a first sign-in creates (auto_create_users), or undefined when no usable username is claimed. */
export interface NewSsoUser {
  companyId: number;
  username: string;
  firstname: string;
  lastname: string;
  role: TRole;
  email: string | null;
  password: undefined;
}

export function newUserFrom(identity: Identity, companyId: number): NewSsoUser | undefined {
  const username = [identity.preferredUsername, identity.email].find((name) => name !== undefined && USERNAME.test(name));
  if (!username) return undefined;
  const [first, ...rest] = (identity.name ?? '').split(/\s+/).filter(Boolean);
  return {
    companyId,
    username,
    firstname: identity.givenName ?? first ?? username,
    lastname: identity.familyName ?? (rest.length ? rest.join(' ') : '-'),
    role: ROLES.User,
    email: identity.email ?? null,
    // No password: the user signs in through the provider (an admin's reset link can give one).
    password: undefined,
  };
}
