// Two-factor sign-in's second step (issue 37): POST /login answers 401 with a challenge when the
// password was right and a code is still due; no session exists until the step is done.
import { listResponse, ZLoginRefusal, ZLoginResponse, ZLoginWithRecoveryCodes, ZTwoFactorSetup, type TLoginResponse, type TLoginWithRecoveryCodes, type TTwoFactorSetup } from '@portal/contract';
import { isAxiosError } from 'axios';
import { api } from '../../../lib/api-answer';
import type { PendingSecondStep } from '../session-context';

/** The challenge of a refused sign-in whose second factor is due, or null for any other failure. */
export function secondStepDue(failure: unknown): PendingSecondStep | null {
  if (!isAxiosError(failure) || failure.response?.status !== 401) return null;
  const answer = ZLoginRefusal.safeParse(failure.response.data);
  if (!answer.success || !answer.data.second_factor_required || !answer.data.challenge) return null;
  return { challenge: answer.data.challenge, enrolmentRequired: answer.data.enrolment_required === true };
}

export function completeSecondStep(challenge: string, proof: { code: string } | { recovery_code: string }): Promise<TLoginResponse> {
  return api.post(ZLoginResponse, '/login/second-factor', { challenge, ...proof });
}

export async function startEnrolmentAtLogin(challenge: string): Promise<TTwoFactorSetup> {
  const { data } = await api.post(listResponse(ZTwoFactorSetup), '/login/second-factor/enrolment', { challenge });
  const setup = data[0];
  if (!setup) throw new Error('The server answered nothing; try again');
  return setup;
}

export function confirmEnrolmentAtLogin(challenge: string, code: string): Promise<TLoginWithRecoveryCodes> {
  return api.post(ZLoginWithRecoveryCodes, '/login/second-factor/enrolment/confirm', { challenge, code });
}
