// How `npm start` runs the bundled server (server/package.json's `start` script), read by the
// tests and benchmarks that must measure what an operator runs: `[NAME=value …] node <options> dist/main.js`.
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export interface StartCommand {
  /** Environment the script sets before `node`, e.g. MALLOC_ARENA_MAX. */
  env: Record<string, string>;
  /** Node's options, between `node` and the entry point. */
  options: string[];
}

export function parseStartCommand(script: string): StartCommand {
  const words = script.trim().split(/\s+/);
  const nodeAt = words.indexOf('node');
  const assignments = words.slice(0, Math.max(nodeAt, 0)).map((word) => /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(word));
  if (nodeAt < 0 || words.at(-1) !== 'dist/main.js' || assignments.some((a) => a === null)) {
    throw new Error(`npm start is no longer '[NAME=value …] node <options> dist/main.js': ${script}`);
  }
  return {
    env: Object.fromEntries(assignments.map((a) => [a![1]!, a![2]!])),
    options: words.slice(nodeAt + 1, -1),
  };
}

/** The start command of the server package at `serverDir`. */
export async function readStartCommand(serverDir: string): Promise<StartCommand> {
  const pkg = JSON.parse(await readFile(path.join(serverDir, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  return parseStartCommand(pkg.scripts?.start ?? '');
}
