import type { TLoginResponse } from '@portal/contract';
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Outlet, useNavigate } from 'react-router';
import { setUnauthorizedHandler } from '../../../lib/unauthorized';
import {
  clearSession,
  readStoredUser,
  readToken,
  storeSession,
  TOKEN_KEY,
  type SessionUser,
} from '../../../lib/storage';
import { SessionContext, type PendingSecondStep, type Session } from '../session-context';

/** The calls load with the first one (a sign-in, a sign-out), not with the sign-in screen (issue 36). */
const loadSessionApi = () => import('../api/session-api');

export const SIGN_IN_NOT_LOADED = 'The page could not load what signing in needs. Check your connection, then reload the page and try again.';

function restoreSession(): SessionUser | null {
  const stored = readStoredUser();
  return readToken() && stored ? stored : null;
}

/** Holds who is signed in; it sits inside the router so a 401 can navigate without reloading. */
export function SessionProvider({ children, onSigningIn }: { children?: ReactNode; onSigningIn?: () => void }) {
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
      // A single sign-on arrives here without login(): its screens start loading now too.
      onSigningIn?.();
      // The company lookup needs the bearer token, so it is stored before the user is complete.
      localStorage.setItem(TOKEN_KEY, answer.token);
      const company = await loadSessionApi()
        .then((sessionApi) => sessionApi.fetchCompany(answer.user.company_id))
        .catch(() => null);
      const sessionUser: SessionUser = { ...answer.user, company };
      storeSession(answer.token, sessionUser);
      setSecondStep(null);
      setUser(sessionUser);
      void navigate('/home');
    },
    [navigate, onSigningIn],
  );

  const login = useCallback(
    async (username: string, password: string) => {
      setLoggingIn(true);
      // The screens after the sign-in start loading while the password is checked, not after.
      onSigningIn?.();
      setError(null);
      setErrorDetails(null);
      const sessionApi = await loadSessionApi().catch(() => null);
      if (!sessionApi) {
        // The code for signing in could not be fetched: offline, or a new version replaced it.
        setError(SIGN_IN_NOT_LOADED);
        setLoggingIn(false);
        return false;
      }
      try {
        await adopt(await sessionApi.login({ username, password }));
        return true;
      } catch (failure) {
        clearSession();
        const refused = sessionApi.describeLoginFailure(failure);
        if ('secondStep' in refused) {
          setSecondStep(refused.secondStep);
          return false;
        }
        setError(refused.error);
        setErrorDetails(refused.details);
        return false;
      } finally {
        setLoggingIn(false);
      }
    },
    [adopt, onSigningIn],
  );

  const logout = useCallback(async () => {
    // The server revokes the token; if it cannot be reached the local session still ends.
    await loadSessionApi()
      .then((sessionApi) => sessionApi.logout())
      .catch(() => undefined);
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
