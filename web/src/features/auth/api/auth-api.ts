import {
  FORGOT_PASSWORD_MESSAGE,
  listResponse,
  ZCompany,
  ZLoginResponse,
  ZMessageResponse,
  ZPasswordLinkResponse,
  type TCompany,
  type TLoginRequest,
  type TLoginResponse,
  type TPasswordLinkResponse,
  type TPasswordSetRequest,
} from '@portal/contract';
import { api } from '../../../lib/api-answer';
import { apiClient } from '../../../lib/api-client';

const ZCompanyAnswer = listResponse(ZCompany);

export async function login(credentials: TLoginRequest): Promise<TLoginResponse> {
  return api.post(ZLoginResponse, '/login', credentials);
}

export async function fetchCompany(companyId: number): Promise<TCompany | null> {
  const { data } = await api.get(ZCompanyAnswer, `/company/${companyId}`);
  return data[0] ?? null;
}

export async function logout(): Promise<void> {
  await apiClient.post('/logout');
}

/** 'Forgot your password?': the server answers the same whatever the username (docs/api.md). */
export async function requestPasswordReset(username: string): Promise<string> {
  const { data } = await api.post(ZMessageResponse, '/password/forgot', { username });
  return data.message || FORGOT_PASSWORD_MESSAGE;
}

/** Sets a new password with the secret of a reset link; no session is needed or sent. */
export async function setPasswordWithLink(body: TPasswordSetRequest): Promise<void> {
  await apiClient.post('/password/set', body);
}

/** Whose password the link sets, while it works (issue 36); a used or expired link answers 422 in words. */
export async function describePasswordLink(token: string): Promise<TPasswordLinkResponse['data']> {
  return (await api.post(ZPasswordLinkResponse, '/password/link', { token })).data;
}
