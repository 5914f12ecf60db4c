// Issue 12, item 12: everything under DATA_DIR is private to the service user (folders 0700, files
// 0600) whatever the umask, and looser modes found at start are tightened and logged. The real
// entry point runs as a child process that inherits this process's umask of 022.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { call, login } from './http.js';
import { startServerProcess } from './processes.js';
import { dicomFixture, upload } from './uploads.js';

const ADMIN = { ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'Pr1vate!Data-pw' };

function modesUnder(dir: string): Map<string, string> {
  const modes = new Map<string, string>();
  const visit = (target: string) => {
    const info = fs.lstatSync(target);
    modes.set(path.relative(dir, target) || '.', (info.mode & 0o7777).toString(8));
    if (info.isDirectory()) for (const name of fs.readdirSync(target)) visit(path.join(target, name));
  };
  visit(dir);
  return modes;
}

describe('DATA_DIR permissions', () => {
  let database: TestDatabase;
  let umask: number;
  beforeAll(async () => {
    umask = process.umask(0o022);
    database = await createTestDatabase('sqlite');
  });
  afterAll(async () => {
    process.umask(umask);
    await database.drop();
  });

  it('keeps folders 0700 and files 0600 under a 022 umask, tightening what it finds at start', async () => {
    const dataDir = database.dataDir;
    fs.chmodSync(dataDir, 0o755);
    fs.mkdirSync(path.join(dataDir, 'objects', 'uploads'), { recursive: true, mode: 0o755 });
    fs.writeFileSync(path.join(dataDir, 'objects', 'uploads', 'left-by-an-old-version'), 'x', { mode: 0o644 });

    const server = await startServerProcess({ DATA_DIR: dataDir, ...ADMIN });
    try {
      const api = `${server.url}/api/v1`;
      const token = await login(api, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD);
      const project = (await call(`${api}/study-petitions`, { token, json: { name: 'Modes', valid: true, status: 'Pendant' } })).body.data[0];
      const answer = await upload(api, token, { name: 'slice.dcm', data: dicomFixture('s01_CT_small.dcm') }, project.id);
      expect(answer.status).toBe(201);

      const modes = modesUnder(dataDir);
      for (const expected of ['portal.sqlite', 'portal.sqlite-wal', 'portal.sqlite-shm', 'objects/uploads/left-by-an-old-version']) {
        expect(modes.get(expected)).toBe('600');
      }
      expect([...modes.keys()].filter((p) => p.startsWith('objects/uploads/') && p !== 'objects/uploads/left-by-an-old-version')).toHaveLength(1);
      const loose = [...modes].filter(([p, mode]) => mode !== (fs.statSync(path.join(dataDir, p)).isDirectory() ? '700' : '600'));
      expect(loose).toEqual([]);
      expect(server.logs()).toContain('made 4 files and folders under DATA_DIR private to the service user');
      expect(server.logs()).toContain('{"path":"objects/uploads/left-by-an-old-version","from":"0644","to":"0600"}');
    } finally {
      server.child.kill('SIGTERM');
      await server.waitForExit();
    }
  });
});
