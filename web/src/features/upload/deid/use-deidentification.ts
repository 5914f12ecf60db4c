import { useEffect, useMemo, useRef, useState } from 'react';
import { mapApiError, type UserFacingError } from '../../../lib/error-mapping';
import { getUploadDeidentification, type UploadDeidentification } from '../api/deidentification';
import { UploadFailure, type BundleMaker, type Transport } from '../api/tus-upload';
import { deidentificationLine } from './deid-line';
import { inlineDeidentifier, workerDeidentifier, type Deidentifier } from './deid-pool';
import { deidentifiedBundleMaker, deidentifyingTransport } from './deid-transport';

export type PolicyLoader = (projectId: number) => Promise<UploadDeidentification>;

type State =
  | { status: 'loading' }
  | { status: 'known'; policy: UploadDeidentification; deidentifier: Deidentifier | null }
  | { status: 'failed'; error: UserFacingError };

type HereToo = Extract<UploadDeidentification, { profile: 'basic' }> & { key: Uint8Array };

/** True when this browser removes identity itself: the project asks for it and the user holds the key. */
export function deidentifiesHere(policy: UploadDeidentification): policy is HereToo {
  return policy.profile !== 'off' && policy.key !== null;
}

function deidentifierFor(policy: HereToo): Deidentifier {
  const enginePolicy = { profile: 'basic' as const, options: policy.options };
  // Module workers are in every browser the portal supports; jsdom (tests) has none.
  return typeof Worker === 'undefined' ? inlineDeidentifier(enginePolicy, policy.key) : workerDeidentifier(enginePolicy, policy.key);
}

/** Sends nothing: without the policy, no one can say whether the files must be changed first. */
function refusing(reason: UserFacingError): Transport {
  return () => ({ result: Promise.reject(new UploadFailure(reason, true)), cancel: () => Promise.resolve(), abandon: () => undefined });
}

/**
 * The upload dialog's de-identification: the project's policy (asked once per dialog), the line
 * that says it, and the transport that sends every file de-identified when the policy asks for it.
 */
export function useDeidentification(projectId: number, transport: Transport, load: PolicyLoader = getUploadDeidentification) {
  const [state, setState] = useState<State>({ status: 'loading' });
  const known = useRef<Promise<UploadDeidentification> | null>(null);
  useEffect(() => {
    const asked = load(projectId);
    known.current = asked;
    let current = true;
    let made: Deidentifier | null = null;
    asked.then(
      (policy) => {
        if (!current) return;
        made = deidentifiesHere(policy) ? deidentifierFor(policy) : null;
        setState({ status: 'known', policy, deidentifier: made });
      },
      (error: unknown) => current && setState({ status: 'failed', error: mapApiError(error) }),
    );
    return () => {
      current = false;
      made?.dispose();
    };
  }, [projectId, load]);

  const loaded = state.status === 'known' ? state : null;
  const failure = state.status === 'failed' ? state.error : null;
  const sending = useMemo<Transport>(() => {
    if (failure) return refusing(failure);
    if (!loaded?.deidentifier || !deidentifiesHere(loaded.policy)) return transport;
    return deidentifyingTransport(transport, loaded.deidentifier, { profile: 'basic', options: loaded.policy.options }, loaded.policy.edition);
  }, [loaded, failure, transport]);
  const makeBundle = useMemo<BundleMaker | null>(() => {
    if (failure || !loaded?.deidentifier || !deidentifiesHere(loaded.policy)) return null;
    return deidentifiedBundleMaker(loaded.deidentifier, { profile: 'basic', options: loaded.policy.options }, loaded.policy.edition);
  }, [loaded, failure]);
  return {
    /** Nothing is sent until the policy is known (or known to be unreadable: then nothing is sent at all). */
    ready: state.status !== 'loading',
    failure,
    line: loaded ? deidentificationLine(loaded.policy) : null,
    transport: sending,
    /** Makes a folder's bundles de-identified (the transport then sends them as they are); null when files go as picked. */
    makeBundle,
    /** The policy once known (a pick made before waits for it); rejects when it cannot be read. */
    policy: () => known.current ?? Promise.reject(new Error('The policy has not been asked for yet')),
  };
}
