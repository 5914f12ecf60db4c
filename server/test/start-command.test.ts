import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStartCommand, type BundleScript } from '../scripts/start-command.js';

// What `npm start` and `npm run worker` set is measured (docs/performance.md, "The start script's
// V8 flags" and "glibc keeps what the HTTP parser frees"; docs/processing.md); an operator who
// starts the bundle from the documented systemd units or the configuration page must get the same.
// The deployment unit once lacked a flag the start script had gained.
const SERVER_DIR = path.resolve(import.meta.dirname, '..');
const DOCS_DIR = path.resolve(SERVER_DIR, '..', 'docs');
const ENTRY: Record<BundleScript, string> = { start: 'main.js', worker: 'worker.js' };

const readDoc = (name: string) => readFile(path.join(DOCS_DIR, name), 'utf8');
/** Environment assignments as `NAME=value` words. */
const assignments = (env: Record<string, string>) => Object.entries(env).map(([name, value]) => `${name}=${value}`);

describe.each(['start', 'worker'] as const)('the documented ways to run `npm run %s`', (script) => {
  it('are what the script runs', async () => {
    const { env, options } = await readStartCommand(SERVER_DIR, script);

    // docs/deployment.md: the unit's ExecStart, and its Environment= lines.
    const deployment = await readDoc('deployment.md');
    const execStart = `ExecStart=/usr/bin/node ${options.join(' ')} /opt/portal/server/dist/${ENTRY[script]}`;
    const unit = deployment.split('```ini').find((block) => block.includes(`/opt/portal/server/dist/${ENTRY[script]}`));
    expect(unit, `a systemd unit for dist/${ENTRY[script]} in docs/deployment.md`).toBeDefined();
    expect(unit).toContain(execStart);
    const unitEnv = unit!
      .split('\n')
      .filter((line) => line.startsWith('Environment='))
      .flatMap((line) => line.slice('Environment='.length).split(/\s+/));
    expect(unitEnv).toEqual(expect.arrayContaining(assignments(env)));

    // docs/configuration.md, "How Node is started": the command line, as wrapped prose.
    const configuration = (await readDoc('configuration.md')).replace(/\s+/g, ' ');
    expect(configuration).toContain(`${[...assignments(env), 'node', ...options].join(' ')} `);
  });
});
