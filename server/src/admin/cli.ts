// npm run admin -- <command> [flags]: the same database settings as the server (DATA_DIR,
// DATABASE_URL). Bad input prints one clear line and exits non-zero, changing nothing.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config/config.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { AppError } from '../errors/app-error.js';
import { createServices } from '../services.js';
import { createStorage } from '../storage/create-storage.js';
import { StorageUnavailableError } from '../storage/storage-errors.js';
import { runWithAuditContext } from '../audit/index.js';
import { AuditBrokenError, CLI_ACTOR, runCommand, USAGE, UsageError } from './commands.js';
import { MoveError, moveInstall, verifyObjects } from './move-install/index.js';
import { PasswordInputError, resolvePassword } from './password-input.js';

const PASSWORD_COMMANDS = new Set(['create-user', 'set-password']);

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === 'help') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const { values } = parseArgs({
    args: rest,
    strict: true,
    options: {
      name: { type: 'string' },
      'company-id': { type: 'string' },
      username: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      firstname: { type: 'string' },
      lastname: { type: 'string' },
      role: { type: 'string' },
      email: { type: 'string' },
      before: { type: 'string' },
      from: { type: 'string' },
      'max-objects': { type: 'string' },
      'older-than': { type: 'string' },
    },
  });
  // Read before the database opens: a mistyped confirmation changes nothing.
  const { 'password-stdin': passwordStdin, ...flags } = values;
  if (PASSWORD_COMMANDS.has(command)) flags.password = await resolvePassword(values);
  else if (passwordStdin) throw new UsageError(`${command} takes no password`);
  const config = loadConfig();
  if (command === 'move-install') {
    // The target database is migrated by the move itself, after it has checked the source.
    console.log(await moveInstall(config, moveOptions(flags), (line) => console.log(line)));
    return 0;
  }
  const handle = openDatabase(config);
  try {
    await migrateToLatest(handle);
    const storage = await createStorage(config);
    if (command === 'verify-objects') {
      console.log(await verifyObjects(handle.db, storage, (line) => console.log(line)));
      return 0;
    }
    const services = createServices(handle, config, storage);
    const output = await runWithAuditContext({ actor: CLI_ACTOR, ip: null, userAgent: 'admin command line' }, () => runCommand(services, command, flags));
    if (output) console.log(output);
    return 0;
  } finally {
    await handle.close();
  }
}

function moveOptions(flags: { from?: string; 'max-objects'?: string }): { from: string; maxObjects?: number } {
  if (flags.from === undefined || flags.from.trim() === '') throw new UsageError('--from is required: the DATA_DIR of the install to move');
  if (flags['max-objects'] === undefined) return { from: flags.from };
  const maxObjects = Number(flags['max-objects']);
  if (!Number.isInteger(maxObjects) || maxObjects < 1) throw new UsageError('--max-objects must be a whole number of objects, 1 or more');
  return { from: flags.from, maxObjects };
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError || error instanceof AppError || error instanceof ConfigError || error instanceof PasswordInputError || error instanceof AuditBrokenError || error instanceof MoveError) {
      console.error(`Error: ${error.message}`);
    } else if (error instanceof StorageUnavailableError) {
      // The bucket failed mid-command (a move, verify-objects): the message names the setting to check.
      console.error(`Error: ${error.message}`);
    } else if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      console.error(`Error: ${error.message}\n\n${USAGE}`);
    } else {
      console.error(error);
    }
    process.exit(1);
  },
);
