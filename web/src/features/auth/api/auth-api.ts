import type { TCompany, TLoginRequest, TLoginResponse } from '@portal/contract';
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
