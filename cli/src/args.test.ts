import { describe, expect, it } from 'vitest';
import { parseCommandLine } from './args.js';
import { CliError, EXIT } from './exit-codes.js';

function usageError(argv: string[]): string {
  try {
    parseCommandLine(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).code).toBe(EXIT.usage);
    return (error as CliError).message.split('\n')[0] ?? '';
  }
  throw new Error('no usage error');
}

const BASE = ['--url', 'https://portal.example.org', '--token-file', '/home/pacs/.portal-token', '--project', '12'];

describe('the command line', () => {
  it('reads the options and every PATH', () => {
    const options = parseCommandLine([...BASE, '--wait', '/exports/ct', 'a.zip']);
    expect(options).toMatchObject({ tokenFile: '/home/pacs/.portal-token', projectId: 12, wait: true, paths: ['/exports/ct', 'a.zip'] });
    expect(options?.url.href).toBe('https://portal.example.org/');
  });

  it('answers null for --help', () => {
    expect(parseCommandLine(['--help'])).toBeNull();
  });

  it('says what is missing or wrong, in words', () => {
    expect(usageError(['--token-file', 't', '--project', '1', 'x'])).toBe('Give the portal’s address with --url.');
    expect(usageError([...BASE])).toBe('Give at least one folder, file or archive to send.');
    expect(usageError([...BASE.slice(0, 4), '--project', 'abc', 'x'])).toBe('--project must be the project’s number, not "abc".');
    expect(usageError(['--url', 'ftp://portal', ...BASE.slice(2), 'x'])).toBe('--url must start with https:// (or http:// for a portal on this network), not ftp://.');
    expect(usageError([...BASE, '--token', 'pup_secret', 'x'])).toContain("Unknown option '--token'");
  });
});
