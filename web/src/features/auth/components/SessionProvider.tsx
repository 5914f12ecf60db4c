import type { TLoginResponse } from '@portal/contract';
import { isAxiosError } from 'axios';
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Outlet, useNavigate } from 'react-router';
import { setUnauthorizedHandler } from '../../../lib/api-client';
import {
  clearSession,
  readStoredUser,
  readToken,
  storeSession,
  TOKEN_KEY,
  type SessionUser,
} from '../../../lib/storage';
import * as authApi from '../api/auth-api';
import { SessionContext, type PendingSecondStep, type Session } from '../session-context';
import { secondStepDue } from '../api/second-step-api';

export const INVALID_LOGIN = 'Invalid Login';

/** The server's sentence under 'Invalid Login' when it said more: a company that signs in through its provider. */
function failureDetails(error: unknown): string | null {
  if (!isAxiosError<{ message?: string }>(error) || error.response?.status !== 403) return null;
  return error.response.data?.message ?? null;
}

/**
 * A throttled sign-in was not judged at all, so it is not an 'Invalid Login' (issue 36): the
 * server's words say when to try again, with the clock time from Retry-After.
 */
function throttledMessage(error: unknown): string | null {
  if (!isAxiosError<{ message?: string }>(error) || error.response?.status !== 429) return null;
  const words = error.response.data?.message ?? 'Too many failed login attempts. Try again later.';
  const seconds = Number(error.response.headers['retry-after']);
  if (!Number.isFinite(seconds) || seconds <= 0) return words;
  const at = new Date(Date.now() + seconds * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return `${words} (at ${at})`;
}

function restoreSession(): SessionUser | null {
  const stored = readStoredUser();
  return readToken() && stored ? stored : null;
}

/** Holds who is signed in; it sits inside the router so a 401 can navigate without reloading. */
export function SessionProvider({ children }: { children?: ReactNode }) {
  const navigate = useNavigate();
  // Spec §4's restore at start: storage is read synchronously, so the first render already knows
  // who is signed in and no render passes through a signed-out state.
  const [user, setUser] = useState<SessionUser | null>(restoreSession);
  const [loggingIn, setLoggingIn] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [errorDetails, setErrorDetails] = useState<string | null>(null);
  const [secondStep, setSecondStep] = useState<PendingSecondStep | null>(null);

  useEffect(
    () =>
      setUnauthorizedHandler(() => {
        setUser(null);
        void navigate('/', { replace: true });
      }),
    [navigate],
  );

  const adopt = useCallback(
    async (answer: TLoginResponse) => {
      // The company lookup needs the bearer token, so it is stored before the user is complete.
      localStorage.setItem(TOKEN_KEY, answer.token);
      const company = await authApi.fetchCompany(answer.user.company_id).catch(() => null);
      const sessionUser: SessionUser = { ...answer.user, company };
      storeSession(answer.token, sessionUser);
      setSecondStep(null);
      setUser(sessionUser);
      void navigate('/home');
    },
    [navigate],
  );

  const login = useCallback(
    async (username: string, password: string) => {
      setLoggingIn(true);
      setError(null);
      setErrorDetails(null);
      try {
        await adopt(await authApi.login({ username, password }));
        return true;
      } catch (failure) {
        clearSession();
        const due = secondStepDue(failure);
        if (due) {
          setSecondStep(due);
          return false;
        }
        setError(throttledMessage(failure) ?? INVALID_LOGIN);
        setErrorDetails(failureDetails(failure));
        return false;
      } finally {
        setLoggingIn(false);
      }
    },
    [adopt],
  );

  const logout = useCallback(async () => {
    // The server revokes the token; if it cannot be reached the local session still ends.
    await authApi.logout().catch(() => undefined);
    clearSession();
    setUser(null);
    void navigate('/', { replace: true });
  }, [navigate]);

  const cancelSecondStep = useCallback((reason?: string) => {
    setSecondStep(null);
    setError(reason ?? null);
    setErrorDetails(null);
  }, []);

  const session = useMemo<Session>(
    () => ({ user, loading: loggingIn, error, errorDetails, login, adopt, logout, secondStep, cancelSecondStep }),
    [user, loggingIn, error, errorDetails, login, adopt, logout, secondStep, cancelSecondStep],
  );

  return <SessionContext.Provider value={session}>{children ?? <Outlet />}</SessionContext.Provider>;
}
