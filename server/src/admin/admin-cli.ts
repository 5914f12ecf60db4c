// The admin command line, callable in process: argv, environment, standard input and the two
// outputs come in as arguments and the exit status goes out as the answer, so tests can run the
// same code as `npm run admin` without starting a process per case (cli.ts wires it to the process).
import { existsSync } from 'node:fs';
import { format, parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config/config.js';
import { openDatabase, sqliteFile } from '../db/database.js';
import { databaseWords } from './database-words.js';
import { migrateToLatest } from '../db/migrate.js';
import { AppError } from '../errors/app-error.js';
import { createServices } from '../services.js';
import { createStorage } from '../storage/create-storage.js';
import { StorageUnavailableError } from '../storage/storage-errors.js';
import { runWithAuditContext } from '../audit/index.js';
import { AuditBrokenError, CLI_ACTOR, runCommand, USAGE, UsageError } from './commands.js';
import { MoveError, moveInstall, verifyObjects } from './move-install/index.js';
import { PasswordInputError, resolvePassword, type PasswordStdin } from './password-input.js';

const PASSWORD_COMMANDS = new Set(['create-user', 'set-password']);

/** What the command line reads and writes: the process's own in cli.ts, a test's in tests. */
export interface AdminCliIo {
  env: NodeJS.ProcessEnv;
  stdin: PasswordStdin;
  /** Each call is one line, without its line ending. */
  out: (line: string) => void;
  err: (line: string) => void;
  /** Standard error is a terminal: a person reads it, so the CLI says which database it opened. */
  terminal?: boolean;
}

async function main(argv: string[], io: AdminCliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === 'help') {
    io.out(USAGE);
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
  if (PASSWORD_COMMANDS.has(command)) flags.password = await resolvePassword(values, io.stdin);
  else if (passwordStdin) throw new UsageError(`${command} takes no password`);
  const config = loadConfig(io.env);
  if (command === 'move-install') {
    // The target database is migrated by the move itself, after it has checked the source.
    io.out(await moveInstall(config, moveOptions(flags), io.out));
    return 0;
  }
  const madeNew = config.databaseUrl === undefined && !existsSync(sqliteFile(config.dataDir));
  const handle = openDatabase(config);
  try {
    await migrateToLatest(handle);
    if (madeNew) {
      io.err(
        `Note: there was no database at ${sqliteFile(config.dataDir)}, so a new, empty one was made. If the portal keeps its ` +
          `data elsewhere, run the command again with its DATA_DIR: DATA_DIR=/the/portal/data npm run admin -- ${command} …`,
      );
    } else if (io.terminal) io.err(`Using ${databaseWords(config)}.`);
    const storage = await createStorage(config);
    if (command === 'verify-objects') {
      io.out(await verifyObjects(handle.db, storage, io.out));
      return 0;
    }
    const services = createServices(handle, config, storage);
    const output = await runWithAuditContext({ actor: CLI_ACTOR, ip: null, userAgent: 'admin command line' }, () => runCommand(services, command, flags));
    if (output) io.out(output);
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

/** Runs one command and answers its exit status; a refusal is one `Error: …` line on `err`, status 1. */
export async function runAdminCli(argv: string[], io: AdminCliIo): Promise<number> {
  try {
    return await main(argv, io);
  } catch (error) {
    if (error instanceof UsageError || error instanceof AppError || error instanceof ConfigError || error instanceof PasswordInputError || error instanceof AuditBrokenError || error instanceof MoveError) {
      io.err(`Error: ${error.message}`);
    } else if (error instanceof StorageUnavailableError) {
      // The bucket failed mid-command (a move, verify-objects): the message names the setting to check.
      io.err(`Error: ${error.message}`);
    } else if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      io.err(`Error: ${error.message}\n\n${USAGE}`);
    } else {
      io.err(format(error));
    }
    return 1;
  }
}
