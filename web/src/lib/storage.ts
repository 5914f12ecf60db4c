import type { TCompany, TUser } from '@portal/contract';

/** Spec §3: the user as the browser keeps it, with the company fetched after login. */
export type SessionUser = TUser & { company: TCompany | null };

export const TOKEN_KEY = 'token';
export const USER_KEY = 'user';

export function readToken(): string | null {
  return localStorage.getItem(TOKEN_KEY);
}

export function readStoredUser(): SessionUser | null {
  const raw = localStorage.getItem(USER_KEY);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as SessionUser;
  } catch {
    // A corrupted entry must not lock the user out: treat it as signed out.
    return null;
  }
}

export function storeSession(token: string, user: SessionUser): void {
  localStorage.setItem(TOKEN_KEY, token);
  localStorage.setItem(USER_KEY, JSON.stringify(user));
}

export function clearSession(): void {
  localStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(USER_KEY);
}
