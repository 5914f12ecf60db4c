// portal-upload: the command-line uploader (issue 37, item 2; docs/cli.md).
import { readFile, stat } from 'node:fs/promises';
import { parseCommandLine, USAGE, type Options } from './args.js';
import { projectDeidentification, type ProjectDeidentification } from './deidentification.js';
import { CliError, EXIT, type ExitCode } from './exit-codes.js';
import { PortalApi } from './portal-api.js';
import { processed, projectFile, summaryLines } from './project-file.js';
import { Run } from './run.js';
import { sendFile } from './upload-file.js';
import { sendFolder } from './upload-folder.js';
import type { Terminal } from './progress.js';

export interface Io {
  stdout: Terminal;
  stderr: Terminal;
  signal: AbortSignal;
}

async function readToken(file: string, stderr: Terminal): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
    // Group or others could read the secret: say so, as ssh does for a key.
    if (((await stat(file)).mode & 0o077) !== 0) stderr.write(`Note: ${file} can be read by other users of this computer; make it yours alone (chmod 600).\n`);
  } catch {
    throw new CliError(EXIT.usage, `The token file ${file} could not be read.`);
  }
  const token = text.trim();
  if (!token || /\s/.test(token)) throw new CliError(EXIT.usage, `The token file ${file} must hold one API token (pup_…) and nothing else.`);
  return token;
}

function deidLine(deid: ProjectDeidentification): string | null {
  if (deid.where === 'here') return 'Patient identity is removed on this computer before upload (the project’s de-identification policy).';
  if (deid.where === 'portal') return 'Patient identity is removed by the portal when the files arrive (this token’s owner holds no project key).';
  return null;
}

async function sendAll(options: Options, io: Io): Promise<ExitCode> {
  const token = await readToken(options.tokenFile, io.stderr);
  const api = new PortalApi(options.url, token, io.signal);
  // Checks the token and the project before anything is read or sent.
  await api.one('GET', `/study-petitions/${options.projectId}`, `Project ${options.projectId}`);
  const deid = await projectDeidentification(api, options.projectId);
  const line = deidLine(deid);
  if (line) io.stderr.write(`${line}\n`);
  const run = new Run(api, options.projectId, deid, io.stderr, options.stateFile);
  let code: ExitCode = EXIT.ok;
  for (const target of options.paths) {
    const kind = await stat(target).catch(() => null);
    if (!kind || (!kind.isDirectory() && !kind.isFile())) throw new CliError(EXIT.usage, `${target} is not a folder or a file that can be read.`);
    const sent = kind.isDirectory() ? await sendFolder(run, target) : await sendFile(run, target);
    const row = await projectFile(api, options.projectId, sent.fileId, sent.name);
    const what = kind.isDirectory() ? `delivery of ${sent.files} files` : 'file';
    io.stdout.write(`${target}: sent as ${what} ${row.id} "${row.file}" of project ${options.projectId}\n`);
    io.stdout.write(`${kind.isDirectory() ? 'Manifest SHA-256' : 'SHA-256'}: ${row.sha256}\n`);
    if (sent.leftOut.some((file) => !file.dicomdir)) code = EXIT.refused;
    if (!options.wait) continue;
    io.stderr.write('Waiting for the portal to process it…\n');
    const done = await processed(api, options.projectId, row.id, sent.name);
    for (const summary of summaryLines(done)) io.stdout.write(`${summary}\n`);
    if (done.processing.status === 'failed' && code === EXIT.ok) code = EXIT.processingFailed;
  }
  return code;
}

/** Runs the command; answers its exit code, having said why on standard error when it is not 0. */
export async function main(argv: readonly string[], io: Io): Promise<ExitCode> {
  try {
    const options = parseCommandLine(argv);
    if (!options) {
      io.stdout.write(`${USAGE}\n`);
      return EXIT.ok;
    }
    return await sendAll(options, io);
  } catch (error) {
    if (io.signal.aborted) {
      io.stderr.write('\nInterrupted. What the portal received is kept: run the same command again to resume.\n');
      return EXIT.interrupted;
    }
    if (error instanceof CliError) {
      io.stderr.write(`${error.message}\n`);
      return error.code;
    }
    io.stderr.write(`portal-upload stopped on an unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.unexpected;
  }
}
