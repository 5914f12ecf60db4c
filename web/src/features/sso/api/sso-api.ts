import {
  listResponse,
  ZLoginResponse,
  ZSsoDiscoverResponse,
  ZSsoSettings,
  type TLoginResponse,
  type TSsoDiscoverResponse,
  type TSsoSettings,
  type TUpdateSsoSettings,
} from '@portal/contract';
import { isAxiosError } from 'axios';
import { api, UnreadableAnswerError } from '../../../lib/api-answer';
import { SSO_ERROR_MESSAGES } from '../sso-messages';

/** The settings come as the one item of a {data} list; an empty list is an answer this page cannot read. */
const ZSsoSettingsAnswer = listResponse(ZSsoSettings);

function theSettings(list: TSsoSettings[], request: string): TSsoSettings {
  const [settings] = list;
  if (!settings) throw new UnreadableAnswerError(request, 'no settings in the answer');
  return settings;
}

export type DiscoveredSso = NonNullable<TSsoDiscoverResponse['data']['sso']>;

export async function discoverSso(username: string): Promise<DiscoveredSso | null> {
  const { data } = await api.post(ZSsoDiscoverResponse, '/sso/discover', { username });
  return data.sso;
}

export async function completeSso(code: string): Promise<TLoginResponse> {
  return api.post(ZLoginResponse, '/sso/complete', { code });
}

/** The session for a provider's one-time code, or what the login screen says when there is none. */
export async function completeSsoOutcome(code: string): Promise<{ answer: TLoginResponse } | { error: string }> {
  try {
    return { answer: await completeSso(code) };
  } catch (error) {
    const expired = isAxiosError<{ message?: string }>(error) && error.response?.status === 401;
    return { error: expired ? (error.response?.data?.message ?? SSO_ERROR_MESSAGES.expired) : SSO_ERROR_MESSAGES.failed };
  }
}

export async function fetchSsoSettings(companyId: number): Promise<TSsoSettings> {
  const { data } = await api.get(ZSsoSettingsAnswer, `/admin/companies/${companyId}/sso`);
  return theSettings(data, 'GET /admin/companies/{id}/sso');
}

export async function saveSsoSettings(companyId: number, body: TUpdateSsoSettings): Promise<TSsoSettings> {
  const { data } = await api.put(ZSsoSettingsAnswer, `/admin/companies/${companyId}/sso`, body);
  return theSettings(data, 'PUT /admin/companies/{id}/sso');
}
