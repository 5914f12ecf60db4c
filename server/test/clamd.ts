// A real clamd (Debian's clamav-daemon) for the scanning tests: a temporary configuration with a
// local socket, and a signature database holding only one test signature, so it starts offline in
// about a second. The signature matches TEST_VIRUS_MARKER anywhere in a file's bytes.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const TEST_SIGNATURE = 'PortalTestSig';
/** Bytes no real file holds: a file containing them is 'infected' with PortalTestSig. */
export const TEST_VIRUS_MARKER = 'portal-test-virus-7f3a9c1e-not-a-real-virus';

export interface TestClamd {
  socket: string;
  /** Starts clamd (again) and waits until its socket answers. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

/** Prepares clamd in a temporary directory; the socket is named before clamd runs (scanner down). */
export function prepareTestClamd(extraConfig: string[] = []): TestClamd {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-clamd-'));
  const db = path.join(dir, 'db');
  fs.mkdirSync(db);
  fs.writeFileSync(path.join(db, 'portal-test.ndb'), `${TEST_SIGNATURE}:0:*:${Buffer.from(TEST_VIRUS_MARKER).toString('hex')}\n`);
  const socket = path.join(dir, 'clamd.sock');
  const config = path.join(dir, 'clamd.conf');
  fs.writeFileSync(
    config,
    [`LocalSocket ${socket}`, `DatabaseDirectory ${db}`, 'Foreground yes', `TemporaryDirectory ${dir}`, 'LogFile /dev/null', ...extraConfig, ''].join('\n'),
  );
  let child: ChildProcess | null = null;
  const stop = async () => {
    const running = child;
    child = null;
    if (running === null || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
    fs.rmSync(socket, { force: true });
  };
  return {
    socket,
    async start() {
      child = spawn('/usr/sbin/clamd', ['--config-file', config], { stdio: 'ignore' });
      for (let i = 0; i < 600; i += 1) {
        if (child.exitCode !== null) throw new Error(`clamd exited with ${child.exitCode}`);
        if (fs.existsSync(socket) && (await answers(socket))) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('clamd did not start within 30 s');
    },
    stop,
    async close() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function answers(socket: string): Promise<boolean> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const c = net.createConnection({ path: socket });
    let reply = '';
    c.on('data', (d: Buffer) => (reply += d.toString()));
    c.on('error', () => resolve(false));
    c.on('close', () => resolve(reply.includes('PONG')));
    c.on('connect', () => c.end('zPING\0'));
  });
}
