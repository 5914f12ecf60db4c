import { createContext, useContext } from 'react';
import type { TLoginResponse } from '@portal/contract';
import type { SessionUser } from '../../lib/storage';

export interface Session {
  user: SessionUser | null;
  /**
   * Spec §4: true while a login runs. The stored session is read synchronously before the first
   * render (SessionProvider), so initialisation never leaves the flag set for a visible moment.
   */
  loading: boolean;
  /** Spec §4: 'Invalid Login' after a failed login. */
  error: string | null;
  /** A second line under 'Invalid Login' when the server said more (e.g. too many attempts). */
  errorDetails: string | null;
  login: (username: string, password: string) => Promise<boolean>;
  /** Signs in with an answer the server gave another way (single sign-on): exactly what a password login stores. */
  adopt: (answer: TLoginResponse) => Promise<void>;
  logout: () => Promise<void>;
  /** A sign-in whose password was right and whose second factor is still due (two-factor sign-in); null otherwise. */
  secondStep: PendingSecondStep | null;
  /** Back to the username and password, with a reason to show there (an expired challenge) or none. */
  cancelSecondStep: (reason?: string) => void;
}

/** POST /login's challenge: a code is due, or (enrolment_required) the company requires setting it up first. */
export interface PendingSecondStep {
  challenge: string;
  enrolmentRequired: boolean;
}

export const SessionContext = createContext<Session | null>(null);

/** Who is signed in, where a screen may also be shown without a session (null then). */
export function useSignedInUser(): SessionUser | null {
  return useContext(SessionContext)?.user ?? null;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession must be used inside <SessionProvider>');
  return session;
}
