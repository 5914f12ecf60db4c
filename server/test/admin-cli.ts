// Runs the admin CLI in the test's own process: the code of `npm run admin` (src/admin/admin-cli.ts)
// with this call's argv, environment and standard input, its two outputs collected. A process per
// call cost ~1 s of start-up on 2 shared cores; the tests that are about the process itself (the
// bundled entry, a pipe, a terminal) start one with processes.ts's spawnCli and runCliOnTerminal.
import { Readable } from 'node:stream';
import { runAdminCli } from '../src/admin/admin-cli.js';
import type { CliResult } from './processes.js';

/** As processes.ts's spawnCli answers: `input`, when given, is standard input (otherwise it is empty). */
export async function runCli(args: string[], env: Record<string, string | undefined>, input?: string): Promise<CliResult> {
  // As the spawned CLI's environment: this process's, less npm's INIT_CWD, with `env` over it.
  const { INIT_CWD: _ignored, ...inherited } = process.env;
  let stdout = '';
  let stderr = '';
  const code = await runAdminCli(args, {
    env: { ...inherited, LOG_LEVEL: 'info', ...env },
    stdin: Readable.from(input === undefined ? [] : [Buffer.from(input)]),
    out: (line) => (stdout += `${line}\n`),
    err: (line) => (stderr += `${line}\n`),
  });
  return { code, stdout, stderr };
}
