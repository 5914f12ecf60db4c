// How a token's scope, projects and dates read in the lists and the form.
import { API_TOKEN_DEFAULT_DAYS, API_TOKEN_MAX_DAYS, type TApiToken, type TApiTokenScope } from '@portal/contract';
import { formatDate, formatDateTime } from '../../lib/format';

export const SCOPE_LABELS: Record<TApiTokenScope, string> = { read: 'Read', upload: 'Read and upload' };

export const SCOPE_HINTS: Record<TApiTokenScope, string> = {
  read: 'List and download projects, files, their contents and studies (DICOMweb too)',
  upload: 'Also send files: uploads, folder deliveries and DICOMweb STOW-RS',
};

export function projectsText(token: Pick<TApiToken, 'projects'>): string {
  return token.projects ? token.projects.map((p) => p.name).join(', ') : 'All projects';
}

export function expiryText(token: Pick<TApiToken, 'expires_at'>, now = Date.now()): string {
  return Date.parse(token.expires_at) <= now ? `Expired ${formatDate(token.expires_at)}` : formatDate(token.expires_at);
}

export function lastUsedText(token: Pick<TApiToken, 'last_used_at' | 'last_used_ip'>): string {
  if (!token.last_used_at) return 'Never';
  return token.last_used_ip ? `${formatDateTime(token.last_used_at)} from ${token.last_used_ip}` : formatDateTime(token.last_used_at);
}

/**
 * A date input's value (YYYY-MM-DD) `days` from today, as the server counts days (UTC): a token
 * works through the end of its expiry day, UTC, and may be made to last at most a year.
 */
export function dateInDays(days: number, now = Date.now()): string {
  return new Date(now + days * 86_400_000).toISOString().slice(0, 10);
}

export const DEFAULT_EXPIRY_DAYS = API_TOKEN_DEFAULT_DAYS;
export const MAX_EXPIRY_DAYS = API_TOKEN_MAX_DAYS;
