// How `npm start` and `npm run worker` run the bundle (server/package.json's `start` and `worker`
// scripts), read by the tests and benchmarks that must measure what an operator runs:
// `[NAME=value …] node <options> dist/main.js` (dist/worker.js).
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export interface StartCommand {
  /** Environment the script sets before `node`, e.g. MALLOC_ARENA_MAX. */
  env: Record<string, string>;
  /** Node's options, between `node` and the entry point. */
  options: string[];
}

const ENTRIES = { start: 'dist/main.js', worker: 'dist/worker.js' } as const;
export type BundleScript = keyof typeof ENTRIES;

export function parseStartCommand(script: string, entry: string = ENTRIES.start): StartCommand {
  const words = script.trim().split(/\s+/);
  const nodeAt = words.indexOf('node');
  const assignments = words.slice(0, Math.max(nodeAt, 0)).map((word) => /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(word));
  if (nodeAt < 0 || words.at(-1) !== entry || assignments.some((a) => a === null)) {
    throw new Error(`the script is no longer '[NAME=value …] node <options> ${entry}': ${script}`);
  }
  return {
    env: Object.fromEntries(assignments.map((a) => [a![1]!, a![2]!])),
    options: words.slice(nodeAt + 1, -1),
  };
}

/** How the server package at `serverDir` runs its bundle for `npm start` or `npm run worker`. */
export async function readStartCommand(serverDir: string, script: BundleScript): Promise<StartCommand> {
  const pkg = JSON.parse(await readFile(path.join(serverDir, 'package.json'), 'utf8')) as { scripts?: Partial<Record<BundleScript, string>> };
  return parseStartCommand(pkg.scripts?.[script] ?? '', ENTRIES[script]);
}
