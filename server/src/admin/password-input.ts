// A password never has to appear on a command line: npm prints a script's whole command line, so it
// would land in terminal scrollback and CI logs. It is read from standard input
// (`--password-stdin`) or typed at a prompt that does not echo it.
import readline from 'node:readline/promises';
import { Writable } from 'node:stream';

export class PasswordInputError extends Error {}

/** Standard input: the process's, or a test's stream (which is no terminal). */
export type PasswordStdin = NodeJS.ReadableStream & { isTTY?: boolean };

/** All of standard input, less the one line ending that `echo` or a here-string adds. */
export async function readPasswordFromStdin(input: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const password = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (password === '') throw new PasswordInputError('--password-stdin was given, but standard input was empty');
  return password;
}

/** Asks twice on the terminal, echoing nothing, and insists the two agree. */
export async function promptNewPassword(input: PasswordStdin = process.stdin): Promise<string> {
  let muted = false;
  // readline writes the typed characters to its output; this one drops them while a password is typed.
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = readline.createInterface({ input, output, terminal: true });
  const ask = async (question: string) => {
    process.stderr.write(question);
    muted = true;
    try {
      return await rl.question('');
    } finally {
      muted = false;
      process.stderr.write('\n');
    }
  };
  try {
    const first = await ask('Password: ');
    if (first === '') throw new PasswordInputError('no password was typed');
    if ((await ask('Repeat the password: ')) !== first) throw new PasswordInputError('the two passwords differ; nothing was changed');
    return first;
  } finally {
    rl.close();
  }
}

/** The password from `--password`, `--password-stdin` or, on a terminal, a prompt. */
export async function resolvePassword(flags: { password?: string; 'password-stdin'?: boolean }, input: PasswordStdin = process.stdin): Promise<string> {
  if (flags.password !== undefined && flags['password-stdin']) {
    throw new PasswordInputError('give either --password or --password-stdin, not both');
  }
  if (flags.password !== undefined) return flags.password;
  if (flags['password-stdin']) return readPasswordFromStdin(input);
  if (input.isTTY === true) return promptNewPassword(input);
  throw new PasswordInputError('a password is needed: pipe it with --password-stdin, or run the command in a terminal to be asked for it');
}
