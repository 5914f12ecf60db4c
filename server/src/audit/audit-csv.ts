// The audit trail as CSV for a spreadsheet: every cell quoted, and a cell a spreadsheet would read
// as a formula (= + - @, tab, carriage return) prefixed with an apostrophe (OWASP's CSV injection advice).
import type { TAuditEntry } from '@portal/contract';

export const CSV_COLUMNS = ['seq', 'at', 'action', 'actor_id', 'actor_name', 'company_id', 'ip', 'user_agent', 'object_type', 'object_id', 'details', 'hash'] as const;

export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

export function csvLine(entry: TAuditEntry): string {
  return `${CSV_COLUMNS.map((c) => csvCell(entry[c])).join(',')}\r\n`;
}

export const CSV_HEADER = `${CSV_COLUMNS.join(',')}\r\n`;
