// npm run admin -- <command> [flags]: the same database settings as the server (DATA_DIR,
// DATABASE_URL). Bad input prints one clear line and exits non-zero, changing nothing.
import { runAdminCli } from './admin-cli.js';

const code = await runAdminCli(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  terminal: process.stderr.isTTY,
});
process.exit(code);
