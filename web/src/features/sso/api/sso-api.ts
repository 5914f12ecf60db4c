import type { TLoginResponse, TSsoDiscoverResponse, TSsoSettings, TUpdateSsoSettings } from '@portal/contract';
import { apiClient } from '../../../lib/api-client';

export type DiscoveredSso = NonNullable<TSsoDiscoverResponse['data']['sso']>;

export async function discoverSso(username: string): Promise<DiscoveredSso | null> {
  const { data } = await apiClient.post<TSsoDiscoverResponse>('/sso/discover', { username });
  return data.data.sso;
}

export async function completeSso(code: string): Promise<TLoginResponse> {
  const { data } = await apiClient.post<TLoginResponse>('/sso/complete', { code });
  return data;
}

export async function fetchSsoSettings(companyId: number): Promise<TSsoSettings> {
  const { data } = await apiClient.get<{ data: TSsoSettings[] }>(`/admin/companies/${companyId}/sso`);
  return data.data[0]!;
}

export async function saveSsoSettings(companyId: number, body: TUpdateSsoSettings): Promise<TSsoSettings> {
  const { data } = await apiClient.put<{ data: TSsoSettings[] }>(`/admin/companies/${companyId}/sso`, body);
  return data.data[0]!;
}
