// portal-upload against a running portal (issue 37, item 2): the built program, a real token made
// through the API, real DICOM files (server/test/fixtures/dicom, see its NOTICE).
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATE_FILE_NAME, type PathState } from '../src/state-file.js';
import { startCountingProxy, type CountingProxy } from './counting-proxy.js';
import { filesOf, runCli, setDeidentification, setUp, type Setup } from './portal-with-token.js';

const FIXTURES = path.resolve(import.meta.dirname, '..', '..', 'server', 'test', 'fixtures', 'dicom');
const SERIES = ['s03_CT_series5N_2062.dcm', 's04_CT_series5N_2392.dcm', 's05_CT_series5N_2693.dcm', 's06_CT_series5N_3023.dcm'];
/** Patient names planted in the tests' copies: one sent as is (the control), one that must never arrive. */
const KEPT_NAME = 'ZZKEPT^SENTASIS';
const PLANTED = 'ZZPLANTED^SECRETNAME';

let setup: Setup;
let plainProject: number;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function plantName(file: string, name: string): void {
  execFileSync('dcmodify', ['-nb', '-i', `(0010,0010)=${name}`, file]);
}

/** A PACS export as it is found on a server: a DICOMDIR, series in folders, and a large non-DICOM file. */
async function pacsExport(root: string, patientName: string, withLargeFile: boolean): Promise<string> {
  const series = path.join(root, 'DICOM', 'ST1', 'SE1');
  await mkdir(series, { recursive: true });
  for (const [i, name] of SERIES.entries()) {
    await copyFile(path.join(FIXTURES, name), path.join(series, `IM${i + 1}`));
    plantName(path.join(series, `IM${i + 1}`), patientName);
  }
  await copyFile(path.join(FIXTURES, 's40_DICOMDIR'), path.join(root, 'DICOMDIR'));
  if (withLargeFile) {
    await mkdir(path.join(root, 'VIEWER'));
    await writeFile(path.join(root, 'VIEWER', 'viewer.bin'), randomBytes(1536 * 1024));
  }
  return root;
}

/** The delivery's manifest as docs/api.md defines it: `<sha256>  <path>\n` per file, in path order. */
async function manifestHash(root: string): Promise<string> {
  const files = (await readdir(root, { recursive: true, withFileTypes: true })).filter((d) => d.isFile());
  const lines = await Promise.all(
    files.map(async (d) => {
      const absolute = path.join(d.parentPath, d.name);
      return { path: path.relative(root, absolute).split(path.sep).join('/'), hash: sha256(await readFile(absolute)) };
    }),
  );
  lines.sort((a, b) => (a.path < b.path ? -1 : 1));
  return sha256(Buffer.from(lines.map((l) => `${l.hash}  ${l.path}\n`).join('')));
}

/** Whether any byte stored by the portal (its database included) holds `text`. */
async function portalHolds(text: string): Promise<boolean> {
  const needle = Buffer.from(text);
  for (const entry of await readdir(setup.portal.dataDir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && (await readFile(path.join(entry.parentPath, entry.name))).includes(needle)) return true;
  }
  return false;
}

const common = () => ['--url', setup.portal.url, '--token-file', setup.tokenFile];

beforeAll(async () => {
  setup = await setUp();
  plainProject = await setup.createProject('PACS exports');
});

afterAll(async () => {
  await setup?.portal.stop();
});

describe('portal-upload', () => {
  it('sends a folder as one delivery and prints its manifest hash', async () => {
    const folder = await pacsExport(path.join(setup.work, 'export-1'), KEPT_NAME, true);
    const run = await runCli([...common(), '--project', String(plainProject), folder]);
    expect(run.code).toBe(0);
    // Not a terminal: plain lines, the last one saying everything went.
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(/^Sent (\d+\.\d\d MB) of \1, 6 of 6 files$/);
    expect(run.stdout).toContain(`Manifest SHA-256: ${await manifestHash(folder)}`);
    const row = (await filesOf(setup, plainProject)).find((f) => f.file === 'export-1');
    expect(row).toMatchObject({ kind: 'folder', sha256: await manifestHash(folder) });
    expect(run.stdout).toContain(`sent as delivery of 6 files ${row!.id} "export-1"`);
    await expect(stat(path.join(setup.work, STATE_FILE_NAME))).rejects.toThrow();
    // The control for the de-identified upload below: without de-identification the name arrives.
    expect(await portalHolds(KEPT_NAME)).toBe(true);
  });

  it('sends a file, waits for processing and prints the summary', async () => {
    const file = path.join(setup.work, 'CT_small.dcm');
    await copyFile(path.join(FIXTURES, 's01_CT_small.dcm'), file);
    const run = await runCli([...common(), '--project', String(plainProject), '--wait', file]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`SHA-256: ${sha256(await readFile(file))}`);
    expect(run.stdout).toContain('Processed: 1 study, 1 series, 1 instance, 0 other files, 0 skipped files');
  });

  it('sends an archive as one upload', async () => {
    const folder = path.join(setup.work, 'zipped');
    await mkdir(folder);
    for (const name of SERIES) await copyFile(path.join(FIXTURES, name), path.join(folder, name));
    const archive = path.join(setup.work, 'series.zip');
    execFileSync('bsdtar', ['-a', '-cf', archive, '-C', folder, '.']);
    const run = await runCli([...common(), '--project', String(plainProject), '--wait', archive]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`SHA-256: ${sha256(await readFile(archive))}`);
    expect(run.stdout).toContain('Processed: 1 study, 1 series, 4 instances');
    expect((await filesOf(setup, plainProject)).find((f) => f.file === 'series.zip')).toMatchObject({ kind: 'archive' });
  });

  it('removes patient identity before sending when the project asks for it', async () => {
    const project = await setup.createProject('De-identified');
    await setDeidentification(setup, project);
    const folder = await pacsExport(path.join(setup.work, 'deid', 'export-2'), PLANTED, false);
    const run = await runCli([...common(), '--project', String(project), '--wait', folder]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Patient identity is removed on this computer before upload');
    expect(run.stderr).toContain('Left out DICOMDIR: This is a DICOMDIR');
    expect(run.stdout).toContain('sent as delivery of 4 files');
    expect(run.stdout).toContain('Patient identity removed: 4 instances on this computer, 0 by the portal, 0 not kept');
    const row = (await filesOf(setup, project)).find((f) => f.file === 'export-2');
    expect(row!.deidentification).toMatchObject({ deidentified_by: 'browser' });
    expect(await portalHolds(PLANTED)).toBe(false);
  });

  it('resumes after a kill -9 without sending again what the portal has', async () => {
    const folder = path.join(setup.work, 'big');
    await mkdir(folder);
    await copyFile(path.join(FIXTURES, 's01_CT_small.dcm'), path.join(folder, 'CT_small.dcm'));
    await writeFile(path.join(folder, 'scan.raw'), randomBytes(24 * 1024 * 1024));
    const archive = path.join(setup.work, 'big.zip');
    execFileSync('bsdtar', ['--format', 'zip', '--options', 'zip:compression=store', '-cf', archive, '-C', folder, '.']);
    const size = (await stat(archive)).size;
    const proxy: CountingProxy = await startCountingProxy(setup.portal.url, 8 * 1024 * 1024);
    try {
      const args = ['--url', proxy.url, '--token-file', setup.tokenFile, '--project', String(plainProject), archive];
      const killed = await runCli(args, () => proxy.patched() > 4 * 1024 * 1024);
      expect(killed.signal).toBe('SIGKILL');
      const state = JSON.parse(await readFile(path.join(setup.work, STATE_FILE_NAME), 'utf8')) as { paths: Record<string, PathState> };
      const [upload] = Object.values(state.paths).flatMap((entry) => Object.values(entry.sends));
      const head = await fetch(upload!.url.replace(proxy.url, setup.portal.url), {
        method: 'HEAD',
        headers: { authorization: `Bearer ${setup.userToken}`, 'tus-resumable': '1.0.0' },
      });
      const held = Number(head.headers.get('upload-offset'));
      expect(held).toBeGreaterThan(0);
      expect(held).toBeLessThan(size);

      proxy.reset();
      const resumed = await runCli(args);
      expect(resumed.code).toBe(0);
      expect(resumed.stderr).toContain('Resuming big.zip: the portal already has part of it.');
      // The portal received the rest and only the rest.
      expect(proxy.patched()).toBe(size - held);
      expect(resumed.stdout).toContain(`SHA-256: ${sha256(await readFile(archive))}`);
      await expect(stat(path.join(setup.work, STATE_FILE_NAME))).rejects.toThrow();
    } finally {
      await proxy.close();
    }
  });

  it('stops on SIGTERM with exit code 130, keeping its state where --state-file says, and the same command then finishes', async () => {
    const archive = path.join(setup.work, 'big.zip');
    const stateFile = path.join(setup.work, 'elsewhere.json');
    const proxy = await startCountingProxy(setup.portal.url, 4 * 1024 * 1024);
    const options = ['--token-file', setup.tokenFile, '--project', String(plainProject), '--state-file', stateFile, '--wait', archive];
    try {
      const stopped = await runCli(['--url', proxy.url, ...options], () => proxy.patched() > 1024 * 1024, 'SIGTERM');
      expect(stopped.code).toBe(130);
      expect(stopped.stderr).toContain('Interrupted. What the portal received is kept: run the same command again to resume.');
      await stat(stateFile);
      await expect(stat(path.join(setup.work, STATE_FILE_NAME))).rejects.toThrow();
      const finished = await runCli(['--url', proxy.url, ...options]);
      expect(finished.code).toBe(0);
      expect(finished.stderr).toContain('Resuming big.zip: the portal already has part of it.');
      expect(finished.stdout).toContain('Processed: 1 study, 1 series, 1 instance, 1 other file, 0 skipped files');
      await expect(stat(stateFile)).rejects.toThrow();
    } finally {
      await proxy.close();
    }
  });

  it('exits with 3 and the portal’s words for a token it does not know', async () => {
    const wrong = path.join(setup.work, 'wrong-token');
    await writeFile(wrong, `pup_${'x'.repeat(43)}\n`, { mode: 0o600 });
    const run = await runCli(['--url', setup.portal.url, '--token-file', wrong, '--project', String(plainProject), setup.work]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('This API token is not valid.');
  });

  it('exits with 4 for a project that does not exist', async () => {
    const run = await runCli([...common(), '--project', '999999', setup.work]);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('Project 999999: Project not found');
  });

  it('exits with 2 and the usage for a command line without a token file, sending nothing', async () => {
    const run = await runCli(['--url', setup.portal.url, '--project', String(plainProject), setup.work]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Give the file holding your API token with --token-file');
    expect(run.stderr).toContain('Usage: portal-upload --url URL --token-file FILE --project ID');
  });
});
