// When a new token stops working: a date the person picks (the token works through that day, UTC)
// or an exact time, in the future and at most a year ahead, refused in words otherwise (400).
import { API_TOKEN_MAX_DAYS } from '@portal/contract';
import { badRequest } from '../errors/app-error.js';

const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export function tokenExpiry(text: string, now: number): Date {
  const at = DATE_ONLY.test(text) ? Date.parse(`${text}T23:59:59.999Z`) : Date.parse(text);
  if (Number.isNaN(at)) throw badRequest('The expiry must be a date such as 2027-03-31');
  if (at <= now) throw badRequest('The expiry date has passed: choose a date after today');
  // The last day allowed is a year from today, whole (so a date picked a year ahead is accepted).
  const lastDay = new Date(now + API_TOKEN_MAX_DAYS * DAY_MS);
  const latest = Date.UTC(lastDay.getUTCFullYear(), lastDay.getUTCMonth(), lastDay.getUTCDate(), 23, 59, 59, 999);
  if (at > latest) throw badRequest(`A token may live at most one year: choose an expiry no later than ${new Date(latest).toISOString().slice(0, 10)}`);
  return new Date(at);
}
