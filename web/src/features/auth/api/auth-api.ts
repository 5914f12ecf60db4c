import { FORGOT_PASSWORD_MESSAGE, type TCompany, type TLoginRequest, type TLoginResponse, type TPasswordSetRequest } from '@portal/contract';
import { apiClient } from '../../../lib/api-client';

export async function login(credentials: TLoginRequest): Promise<TLoginResponse> {
  const { data } = await apiClient.post<TLoginResponse>('/login', credentials);
  return data;
}

export async function fetchCompany(companyId: number): Promise<TCompany | null> {
  const { data } = await apiClient.get<{ data: TCompany[] }>(`/company/${companyId}`);
  return data.data[0] ?? null;
}

export async function logout(): Promise<void> {
  await apiClient.post('/logout');
}

/** 'Forgot your password?': the server answers the same whatever the username (docs/api.md). */
export async function requestPasswordReset(username: string): Promise<string> {
  const { data } = await apiClient.post<TMessageAnswer>('/password/forgot', { username });
  return data.data.message || FORGOT_PASSWORD_MESSAGE;
}

/** Sets a new password with the secret of a reset link; no session is needed or sent. */
export async function setPasswordWithLink(body: TPasswordSetRequest): Promise<void> {
  await apiClient.post('/password/set', body);
}

interface TMessageAnswer {
  data: { message: string };
}
