import { parseArgs } from 'node:util';
import { CliError, EXIT } from './exit-codes.js';

export const USAGE = `Usage: portal-upload --url URL --token-file FILE --project ID [--wait] [--state-file FILE] PATH…

Sends each PATH to a project of the portal: a folder as one delivery, a file or an archive as one
upload. An interrupted run resumes where it stopped when run again with the same arguments.

  --url URL          the portal's address, e.g. https://portal.example.org
  --token-file FILE  a file holding a personal API token with the upload scope (pup_…)
  --project ID       the project's number (as in /study/ID in the portal)
  --wait             wait until the portal has processed each upload and print its summary
  --state-file FILE  where to keep what is needed to resume (default: .portal-upload-state.json
                     beside each PATH; give one when the data's folder cannot be written)
  --help             show this text`;

export interface Options {
  url: URL;
  tokenFile: string;
  projectId: number;
  wait: boolean;
  /** Null: beside each PATH. */
  stateFile: string | null;
  paths: string[];
}

function fail(message: string): never {
  throw new CliError(EXIT.usage, `${message}\n\n${USAGE}`);
}

/** The command line as options, or null for --help; a mistake is a usage error that says which. */
export function parseCommandLine(argv: readonly string[]): Options | null {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        'token-file': { type: 'string' },
        project: { type: 'string' },
        wait: { type: 'boolean', default: false },
        'state-file': { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    // parseArgs names the option it did not know or that lacked its value.
    fail(error instanceof Error ? error.message.split('. ')[0] ?? 'The command line could not be read' : 'The command line could not be read');
  }
  const { values, positionals } = parsed;
  if (values.help) return null;
  if (!values.url) fail('Give the portal’s address with --url.');
  if (!values['token-file']) fail('Give the file holding your API token with --token-file (a token is never taken from the command line).');
  if (!values.project) fail('Give the project’s number with --project.');
  if (positionals.length === 0) fail('Give at least one folder, file or archive to send.');
  let url: URL;
  try {
    url = new URL(values.url);
  } catch {
    fail(`--url ${values.url} is not an address: write it as https://portal.example.org.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`--url must start with https:// (or http:// for a portal on this network), not ${url.protocol}//.`);
  if (!/^[1-9]\d*$/.test(values.project)) fail(`--project must be the project’s number, not "${values.project}".`);
  return { url, tokenFile: values['token-file'], projectId: Number(values.project), wait: values.wait, stateFile: values['state-file'] ?? null, paths: positionals };
}
