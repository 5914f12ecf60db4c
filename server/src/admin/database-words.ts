// Which database the admin CLI works on, in words, and the command a person must type to reach the
// same one as the server: run from another folder or without the server's DATA_DIR, the CLI used to
// make a new, empty database without a word (issue 36).
import type { Config } from '../config/config.js';
import { sqliteFile } from '../db/database.js';

/** 'the SQLite database /srv/portal/data/portal.sqlite' or 'the PostgreSQL database portal on db:5432' (never the password). */
export function databaseWords(config: Pick<Config, 'dataDir' | 'databaseUrl'>): string {
  if (config.databaseUrl === undefined) return `the SQLite database ${sqliteFile(config.dataDir)}`;
  try {
    const url = new URL(config.databaseUrl);
    return `the PostgreSQL database ${decodeURIComponent(url.pathname.slice(1)) || '(default)'} on ${url.host || 'the local socket'}`;
  } catch {
    return 'the PostgreSQL database DATABASE_URL names';
  }
}

/** A word for a POSIX shell: quoted when it holds anything but plain path characters. */
function shellWord(text: string): string {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * `npm run admin --` with the settings that reach the server's database: DATA_DIR written out (a
 * relative one depends on the folder it is run from), or a reminder of DATABASE_URL, whose
 * password must not be printed.
 */
export function adminCommandFor(config: Pick<Config, 'dataDir' | 'databaseUrl'>): { prefix: string; note: string | null } {
  if (config.databaseUrl !== undefined) return { prefix: 'npm run admin --', note: 'with the same DATABASE_URL (and S3 settings) as the portal' };
  return { prefix: `DATA_DIR=${shellWord(config.dataDir)} npm run admin --`, note: null };
}
