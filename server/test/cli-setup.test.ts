// The stumbles of a first set-up (issue 36): an old Node is named before anything is built, the admin
// CLI says which database it works on and when it just made an empty one, and a weak password is
// refused with the rules it breaks.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteFile } from '../src/db/database.js';
import { runCli } from './admin-cli.js';
import { createTestDatabase, dialects, type TestDatabase } from './databases.js';
import { runCliOnTerminal } from './processes.js';

const run = promisify(execFile);

describe('the Node version check before start, build, worker and admin', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'portal-node-check-'));
    await mkdir(path.join(root, 'server', 'scripts'), { recursive: true });
    await copyFile(path.join(import.meta.dirname, '..', 'scripts', 'check-node.mjs'), path.join(root, 'server', 'scripts', 'check-node.mjs'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  /** The check, run by this Node against a package.json that asks for `engines`. */
  async function check(engines: string): Promise<{ code: number; stderr: string }> {
    await writeFile(path.join(root, 'package.json'), JSON.stringify({ engines: { node: engines } }));
    try {
      const { stderr } = await run(process.execPath, [path.join(root, 'server', 'scripts', 'check-node.mjs')]);
      return { code: 0, stderr };
    } catch (error) {
      const failed = error as { code: number; stderr: string };
      return { code: failed.code, stderr: failed.stderr };
    }
  }

  it('names the version needed and the one found, and stops', async () => {
    const older = await check('>=99.1');
    expect(older.code).toBe(1);
    expect(older.stderr).toContain(`The portal needs Node 99.1 or later (24 LTS recommended); this is Node ${process.versions.node}`);
    expect(older.stderr).toContain('Install a newer Node');
  });

  it('says nothing when the Node is new enough', async () => {
    const [major] = process.versions.node.split('.');
    expect(await check(`>=${major}.0`)).toEqual({ code: 0, stderr: '' });
    // The repository's own requirement holds for the Node the tests run on.
    const ours = await run(process.execPath, [path.join(import.meta.dirname, '..', 'scripts', 'check-node.mjs')]);
    expect(ours.stderr).toBe('');
  });
});

describe('the admin CLI names a database it had to make', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'portal-cli-new-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('says so the first time, naming the file and the setting to use, and not again', async () => {
    const first = await runCli(['list-companies'], { DATA_DIR: dataDir, DATABASE_URL: undefined });
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('(none)\n');
    expect(first.stderr).toContain(`there was no database at ${sqliteFile(dataDir)}, so a new, empty one was made`);
    expect(first.stderr).toContain('run the command again with its DATA_DIR: DATA_DIR=/the/portal/data npm run admin -- list-companies');
    const second = await runCli(['list-companies'], { DATA_DIR: dataDir, DATABASE_URL: undefined });
    expect(second.stderr).toBe('');
  });
});

describe.each(dialects())('the admin CLI on %s', (dialect) => {
  let database: TestDatabase;
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrated: true });
    env = { DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl };
  });
  afterAll(() => database.drop());

  it('says which database it opened to a person at a terminal, and not to a script', async () => {
    const typed = await runCliOnTerminal(['list-companies'], env, []);
    expect(typed.code).toBe(0);
    const name = database.databaseUrl === undefined ? `the SQLite database ${sqliteFile(database.dataDir)}` : `the PostgreSQL database ${new URL(database.databaseUrl).pathname.slice(1)} on ${new URL(database.databaseUrl).host}`;
    expect(typed.stdout).toContain(`Using ${name}.`);
    const piped = await runCli(['list-companies'], env);
    expect(piped.stderr).toBe('');
  });

  it('refuses a weak password naming each rule it breaks, and creates no one', async () => {
    const company = (await runCli(['create-company', '--name', 'Rules Clinic'], env)).stdout.trim();
    const args = ['create-user', '--company-id', company, '--username', 'weak', '--firstname', 'W', '--lastname', 'P', '--role', 'User', '--password-stdin'];
    const refused = await runCli(args, env, 'lowercase-only');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'Error: Password does not meet all requirements: one uppercase letter; one number. Choose another and run the command again\n',
    );
    expect((await runCli(['list-users'], env)).stdout).not.toContain('weak');
    const short = await runCli(['set-password', '--username', 'weak', '--password-stdin'], env, 'Ab1!');
    expect(short.stderr).toContain('minimum 8 characters');
    expect((await runCli(args, env, 'Lowercase-0nly')).code).toBe(0);
  });
});
