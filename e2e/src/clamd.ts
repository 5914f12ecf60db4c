// A real clamd (Debian's clamav-daemon) for the scanning suite: a temporary configuration with a
// local socket and a database of one test signature, so it starts offline in well under a second.
// A file holding VIRUS_MARKER is found infected with SIGNATURE.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const VIRUS_MARKER = 'portal-e2e-virus-3b8d2f0a-not-a-real-virus';
export const SIGNATURE = 'PortalE2eSig.UNOFFICIAL';

export interface Clamd {
  socket: string;
  remove(): Promise<void>;
}

export async function startClamd(): Promise<Clamd> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-e2e-clamd-'));
  const db = path.join(dir, 'db');
  await mkdir(db);
  await writeFile(path.join(db, 'portal-e2e.ndb'), `PortalE2eSig:0:*:${Buffer.from(VIRUS_MARKER).toString('hex')}\n`);
  const socket = path.join(dir, 'clamd.sock');
  const config = path.join(dir, 'clamd.conf');
  await writeFile(config, [`LocalSocket ${socket}`, `DatabaseDirectory ${db}`, 'Foreground yes', `TemporaryDirectory ${dir}`, 'LogFile /dev/null', ''].join('\n'));
  const child: ChildProcess = spawn('/usr/sbin/clamd', ['--config-file', config], { stdio: 'ignore' });
  for (let i = 0; i < 600 && !existsSync(socket); i += 1) {
    if (child.exitCode !== null) throw new Error(`clamd exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!existsSync(socket)) throw new Error('clamd did not start within 30 s');
  return {
    socket,
    async remove() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
