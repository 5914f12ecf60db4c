// Child processes under measurement: each size gets a fresh process, so its VmHWM (the kernel's
// peak resident set) belongs to that one upload and not to an earlier, larger one.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';

export interface Child {
  process: ChildProcess;
  pid: number;
  /** The last lines the child wrote, for error messages. */
  output(): string;
}

export function startChild(command: string, args: string[], options: SpawnOptions): Child {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  let tail = '';
  const keep = (chunk: Buffer) => {
    if (process.env.BENCH_CHILD_LOG) process.stderr.write(chunk);
    tail = (tail + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { process: child, pid: child.pid, output: () => tail };
}

/** Peak resident set size of a live process in bytes, from /proc/<pid>/status (Linux). */
export async function peakRssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status);
  if (match === null) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

export async function stopChild(child: Child): Promise<void> {
  const proc = child.process;
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * CPU time (user + system, every thread) a live process has used so far, in seconds, from
 * /proc/<pid>/stat. Sampled before and after an upload it shows what the upload cost the server,
 * which on a 2-core machine shared with the client decides the throughput as much as the disk.
 */
export async function cpuSeconds(pid: number): Promise<number> {
  return ticksOf(await readFile(`/proc/${pid}/stat`, 'utf8'));
}

/**
 * The same for the process's main thread alone (its JavaScript thread: parsing, hashing, streams),
 * whose share decides whether one core is enough for an upload path; the rest is the thread
 * pool's writes and any worker.
 */
export async function mainThreadCpuSeconds(pid: number): Promise<number> {
  return ticksOf(await readFile(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
}

/** CPU seconds so far of each thread of a live process, summed by thread name (`comm`). */
export async function threadCpuSeconds(pid: number): Promise<Map<string, number>> {
  const byName = new Map<string, number>();
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => undefined);
    if (stat === undefined) continue;
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    byName.set(name, (byName.get(name) ?? 0) + ticksOf(stat));
  }
  return byName;
}

function ticksOf(stat: string): number {
  // Fields after the command name, which is in parentheses and may itself hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, in clock ticks (USER_HZ, 100 on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resolves with the first stdout line matching `pattern`, or rejects if the child exits first. */
export function waitForLine(child: Child, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => finish(new Error(`timed out waiting for ${String(pattern)}\n${child.output()}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = pattern.exec(buffered);
      if (match !== null) finish(match);
    };
    const onExit = () => finish(new Error(`child exited early:\n${child.output()}`));
    const finish = (result: RegExpExecArray | Error) => {
      clearTimeout(timer);
      child.process.stdout?.off('data', onData);
      child.process.off('exit', onExit);
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    child.process.stdout?.on('data', onData);
    child.process.once('exit', onExit);
  });
}

/** A port free right now on loopback, for a child that must be told its port up front. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
