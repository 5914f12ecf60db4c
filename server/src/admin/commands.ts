import { brokenPasswordRules } from '@portal/contract';
import type { Services } from '../services.js';
import { counted, formatBytes } from './move-install/progress.js';
import { parseRole, roleName } from '../users/index.js';
import { createCompany, createUser, disableUser, setPassword } from './user-admin.js';

export class UsageError extends Error {}

export const USAGE = `Usage: npm run admin -- <command> [flags]
  create-company --name NAME
  create-user --company-id ID --username U --firstname F --lastname L --role 1|2|3|4|User|CompanyAdmin|SysUser|SysAdmin [--email E]
  set-password --username U

The password is asked for on the terminal (not echoed), or read from standard input with
--password-stdin:  printf '%s' "$PASSWORD" | npm run admin -- set-password --username U --password-stdin
(--password P still works, but npm prints the whole command line, password included.)
  disable-user --username U
  list-companies
  list-users
  verify-audit              check the audit trail's hash chain; exits 1 at the first broken link
  prune-audit --before DATE remove audit rows older than DATE (2025-01-01 or an ISO time); itself audited
  purge-deleted [--older-than DAYS]
                            remove the stored bytes of files and deliveries deleted more than DAYS ago
                            (default DELETED_RETENTION_DAYS; 0: every deleted one); their rows stay, audited
  verify-objects            read every stored object back and check its size and SHA-256 against the database
  move-install --from DIR [--max-objects N]
                            move the single-machine install in DIR (SQLite and files; its server stopped)
                            into the database and storage these settings name (DATABASE_URL, DATA_DIR,
                            S3_*), checking every SHA-256; run it again to go on after an interruption
                            (docs/deployment.md)`;

type Flags = Partial<Record<'name' | 'company-id' | 'username' | 'password' | 'firstname' | 'lastname' | 'role' | 'email' | 'before' | 'from' | 'max-objects' | 'older-than', string>>;

/** The audit trail's actor for everything done at the command line. */
export const CLI_ACTOR = { id: null, name: 'cli', companyId: null };

/** verify-audit found a broken link: the command prints it and exits 1. */
export class AuditBrokenError extends Error {}

function required(flags: Flags, name: keyof Flags): string {
  const value = flags[name];
  if (value === undefined || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** The new password, or a refusal naming the spec's rules it breaks (the API answers only the spec's one sentence). */
function strongPassword(flags: Flags): string {
  const password = required(flags, 'password');
  const broken = brokenPasswordRules(password);
  if (broken.length) {
    throw new UsageError(`Password does not meet all requirements: ${broken.map((rule) => rule.toLowerCase()).join('; ')}. Choose another and run the command again`);
  }
  return password;
}

function table(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '(none)';
  const columns = Object.keys(rows[0]!);
  const width = (c: string) => Math.max(c.length, ...rows.map((r) => String(r[c]).length));
  const line = (cells: string[]) => cells.map((v, i) => v.padEnd(width(columns[i]!))).join('  ');
  return [line(columns), ...rows.map((r) => line(columns.map((c) => String(r[c]))))].join('\n');
}

/** Runs one admin command and answers what to print. */
export async function runCommand(services: Services, command: string, flags: Flags): Promise<string> {
  switch (command) {
    case 'create-company': {
      const name = required(flags, 'name').trim();
      if (name.length > 255) throw new UsageError('--name must be at most 255 characters');
      const company = await createCompany(services, name);
      return String(company.id);
    }
    case 'create-user': {
      const companyId = Number(required(flags, 'company-id'));
      if (!Number.isInteger(companyId) || companyId <= 0) throw new UsageError('--company-id must be a company id');
      const roleText = required(flags, 'role');
      const role = parseRole(roleText);
      if (role === undefined) {
        throw new UsageError(`Unknown role "${roleText}": use 1|2|3|4 or User, CompanyAdmin, SysUser, SysAdmin`);
      }
      const user = await createUser(services, {
        companyId,
        username: required(flags, 'username'),
        password: strongPassword(flags),
        firstname: required(flags, 'firstname'),
        lastname: required(flags, 'lastname'),
        role,
        email: flags.email,
      });
      return String(user.id);
    }
    case 'set-password':
      await setPassword(services, required(flags, 'username'), strongPassword(flags));
      return 'Password changed; the user\'s sessions were signed out.';
    case 'disable-user':
      await disableUser(services, required(flags, 'username'));
      return 'User disabled; the user\'s sessions were signed out.';
    case 'list-companies':
      return table((await services.repos.companies.list()).map((c) => ({ id: c.id, name: c.companyname, created_at: c.created_at })));
    case 'list-users':
      return table(
        (await services.repos.users.list()).map((u) => ({
          id: u.id,
          username: u.username,
          name: `${u.firstname} ${u.lastname}`,
          role: roleName(u.role),
          company_id: u.company_id,
          disabled: u.disabled ? 'yes' : 'no',
        })),
      );
    case 'verify-audit': {
      const result = await services.audit.verify();
      if (result.break) throw new AuditBrokenError(`the audit trail is broken at row ${result.break.seq}: ${result.break.reason} (${result.rows} rows before it are intact)`);
      return `The audit trail is intact: ${result.rows} rows checked.`;
    }
    case 'prune-audit': {
      const before = required(flags, 'before');
      const time = Date.parse(before);
      if (Number.isNaN(time)) throw new UsageError('--before must be a date (2025-01-01) or an ISO 8601 time');
      const removed = await services.audit.prune(new Date(time).toISOString(), CLI_ACTOR);
      return `Removed ${removed} audit rows older than ${new Date(time).toISOString()}; the rest still verify from the new anchor.`;
    }
    case 'purge-deleted':
      return purgeDeleted(services, flags['older-than']);
    default:
      throw new UsageError(`Unknown command "${command}"\n\n${USAGE}`);
  }
}

const DAY_MS = 24 * 3_600_000;

/** `purge-deleted`: what was freed, in words. */
async function purgeDeleted(services: Services, olderThan: string | undefined): Promise<string> {
  let olderThanMs: number | undefined;
  if (olderThan !== undefined) {
    const days = Number(olderThan);
    if (olderThan.trim() === '' || !Number.isInteger(days) || days < 0 || days > 36_500) {
      throw new UsageError('--older-than must be a whole number of days, 0 or more (0: every deleted file)');
    }
    olderThanMs = days * DAY_MS;
  }
  const days = (olderThanMs ?? services.purge.retentionMs) / DAY_MS;
  const when = days === 0 ? '' : ` (deleted more than ${counted(days, 'day', 'days')} ago)`;
  const result = await services.purge.purgeDue(olderThanMs === undefined ? {} : { olderThanMs });
  const deferred =
    result.deferred === 0
      ? ''
      : ` ${counted(result.deferred, 'file was', 'files were')} left for later: ${result.deferred === 1 ? 'it was' : 'they were'} still being processed when deleted; run the command again in a minute.`;
  if (result.files + result.deliveries === 0) return `Nothing to purge: no deleted file or delivery${when} still holds stored bytes.${deferred}`;
  const what = [
    ...(result.files > 0 ? [counted(result.files, 'deleted file', 'deleted files')] : []),
    ...(result.deliveries > 0 ? [counted(result.deliveries, 'deleted delivery', 'deleted deliveries')] : []),
  ].join(' and ');
  return `Purged ${what}${when}, freeing ${formatBytes(result.bytes)} (${result.bytes.toLocaleString('en-US')} bytes); each is recorded in the audit trail.${deferred}`;
}
