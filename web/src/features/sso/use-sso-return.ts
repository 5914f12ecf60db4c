import type { TLoginResponse } from '@portal/contract';
import { useEffect, useState } from 'react';
import { ssoErrorMessage, SSO_ERROR_MESSAGES } from './sso-messages';

type Outcome = { answer: TLoginResponse } | { error: string };

/** One exchange per code, however often the screen mounts (React's strict mode mounts it twice). */
const exchanges = new Map<string, Promise<Outcome>>();
const adopted = new Set<string>();

function exchange(code: string): Promise<Outcome> {
  let pending = exchanges.get(code);
  if (!pending) {
    // The calls load only when a provider sent the browser back with a code (issue 36: first load).
    pending = import('./api/sso-api').then(
      (ssoApi) => ssoApi.completeSsoOutcome(code),
      () => ({ error: SSO_ERROR_MESSAGES.failed }),
    );
    exchanges.set(code, pending);
  }
  return pending;
}

/** What the provider's return left in the fragment: a one-time code (#sso=…) or a reason (#sso_error=…). */
function readFragment(): { code?: string; reason?: string } {
  const params = new URLSearchParams(window.location.hash.slice(1));
  return { code: params.get('sso') ?? undefined, reason: params.get('sso_error') ?? undefined };
}

/**
 * Finishes a sign-in through the company's provider when the browser comes back to the login
 * screen: trades the one-time code for the session (then `onSignedIn` stores it as a password
 * login would) or words the reason it failed. The fragment is removed at once, so neither a reload
 * nor the history replays it.
 */
export function useSsoReturn(onSignedIn: (answer: TLoginResponse) => Promise<void>): { busy: boolean; error: string | null } {
  const [fragment] = useState(readFragment);
  const [busy, setBusy] = useState(Boolean(fragment.code));
  const [error, setError] = useState<string | null>(fragment.reason ? ssoErrorMessage(fragment.reason) : null);

  useEffect(() => {
    if (!fragment.code && !fragment.reason) return;
    window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
    if (!fragment.code) return;
    let live = true;
    const code = fragment.code;
    void exchange(code).then(async (outcome) => {
      if ('answer' in outcome) {
        if (adopted.has(code)) return;
        adopted.add(code);
        await onSignedIn(outcome.answer);
      } else if (live) {
        setError(outcome.error);
      }
      if (live) setBusy(false);
    });
    return () => {
      live = false;
    };
  }, [fragment, onSignedIn]);

  return { busy, error };
}
