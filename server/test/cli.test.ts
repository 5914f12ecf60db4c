import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { createTestDatabase, dialects, type TestDatabase } from './databases.js';
import { call, login } from './http.js';
import { runCli } from './admin-cli.js';
import { runCliOnTerminal, spawnCli, startServerProcess } from './processes.js';

describe.each(dialects())('admin CLI on %s', (dialect) => {
  let database: TestDatabase;
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    env = { DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl };
  });
  afterAll(() => database.drop());

  const cli = (...args: string[]) => runCli(args, env);

  /** Everything the CLI could have changed, read straight from the database. */
  async function snapshot(): Promise<string> {
    const handle = openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
    try {
      const users = await handle.db.selectFrom('users').selectAll().orderBy('id').execute();
      const companies = await handle.db.selectFrom('companies').selectAll().orderBy('id').execute();
      return JSON.stringify({ users, companies });
    } finally {
      await handle.close();
    }
  }

  it('makes a company and a user who can sign in through the server', async () => {
    // The first two as an operator runs them: the bundled entry as a process, the password piped in.
    const company = await spawnCli(['create-company', '--name', 'St. Mary’s Radiology'], env);
    expect(company.code).toBe(0);
    const companyId = company.stdout.trim();
    expect(companyId).toMatch(/^\d+$/);
    // The password arrives on standard input, so it is on no command line npm could print.
    const user = await spawnCli(
      ['create-user', '--company-id', companyId, '--username', 'mary', '--password-stdin', '--firstname', 'Mary', '--lastname', 'Jones', '--role', 'CompanyAdmin'],
      env,
      'Rad!ology9\n',
    );
    expect(user.code).toBe(0);
    expect(user.stdout + user.stderr).not.toContain('Rad!ology9');
    const listed = await cli('list-users');
    expect(listed.stdout).toMatch(/mary\s+Mary Jones\s+CompanyAdmin\s+/);
    expect((await cli('list-companies')).stdout).toContain('St. Mary’s Radiology');

    const server = await startServerProcess(env);
    try {
      const token = await login(`${server.url}/api/v1`, 'mary', 'Rad!ology9');
      const own = await call(`${server.url}/api/v1/company/${companyId}`, { token });
      expect(own.body.data[0].companyname).toBe('St. Mary’s Radiology');

      // Typed at the prompt, twice, and never shown on the terminal.
      const typed = await runCliOnTerminal(['set-password', '--username', 'mary'], env, ['An0ther!Pass', 'An0ther!Pass']);
      expect(typed.stdout).toContain('Password: ');
      expect(typed.stdout).toContain('Repeat the password: ');
      expect(typed.stdout).not.toContain('An0ther!Pass');
      expect(typed.code).toBe(0);
      expect((await call(`${server.url}/api/v1/me`, { token })).status).toBe(401);
      const again = await login(`${server.url}/api/v1`, 'mary', 'An0ther!Pass');

      expect((await cli('disable-user', '--username', 'mary')).code).toBe(0);
      expect((await call(`${server.url}/api/v1/me`, { token: again })).status).toBe(401);
      const refused = await call(`${server.url}/api/v1/login`, { json: { username: 'mary', password: 'An0ther!Pass' } });
      expect(refused.status).toBe(401);
    } finally {
      server.child.kill('SIGTERM');
      await server.waitForExit();
    }
  });

  it.each([
    [['create-user', '--company-id', '424242', '--username', 'u1', '--password', 'Str0ng!Pass', '--firstname', 'A', '--lastname', 'B', '--role', '1'], 'No company with id 424242'],
    [['create-user', '--company-id', '1', '--username', 'mary', '--password', 'Str0ng!Pass', '--firstname', 'A', '--lastname', 'B', '--role', '1'], 'The username mary is taken'],
    [['create-user', '--company-id', '1', '--username', 'u2', '--password', 'weakpass', '--firstname', 'A', '--lastname', 'B', '--role', '1'], 'Password does not meet all requirements'],
    [['create-user', '--company-id', '1', '--username', 'u3', '--password', 'Str0ng!Pass', '--firstname', 'A', '--lastname', 'B', '--role', 'Overlord'], 'Unknown role "Overlord"'],
    [['create-user', '--company-id', '1', '--username', 'u4', '--password', 'Str0ng!Pass', '--firstname', 'A', '--role', '1'], '--lastname is required'],
    [['create-company'], '--name is required'],
    [['set-password', '--username', 'ghost', '--password', 'Str0ng!Pass'], 'No user named ghost'],
    [['disable-user', '--username', 'ghost'], 'No user named ghost'],
    [['launch-rockets'], 'Unknown command "launch-rockets"'],
    [['set-password', '--username', 'mary'], 'pipe it with --password-stdin, or run the command in a terminal'],
    [['set-password', '--username', 'mary', '--password-stdin'], 'standard input was empty'],
    [['set-password', '--username', 'mary', '--password', 'Str0ng!Pass', '--password-stdin'], 'either --password or --password-stdin'],
    [['list-users', '--password-stdin'], 'list-users takes no password'],
    [['list-users', '--verbose'], "Unknown option '--verbose'"],
  ])('refuses %j with a clear error, a non-zero exit, and no change', async (args, message) => {
    const before = await snapshot();
    const result = await cli(...args);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await snapshot()).toBe(before);
  });

  it('refuses as a process too: status 1, one line on standard error, no change', async () => {
    const before = await snapshot();
    const result = await spawnCli(['disable-user', '--username', 'ghost'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('Error: No user named ghost\n');
    expect(result.stdout).toBe('');
    expect(await snapshot()).toBe(before);
  });

  it('changes nothing when the password typed again at the prompt differs', async () => {
    const before = await snapshot();
    const typed = await runCliOnTerminal(['set-password', '--username', 'mary'], env, ['Str0ng!Pass1', 'Str0ng!Pass2']);
    expect(typed.code).not.toBe(0);
    expect(typed.stdout).toContain('the two passwords differ; nothing was changed');
    expect(await snapshot()).toBe(before);
  });
});
