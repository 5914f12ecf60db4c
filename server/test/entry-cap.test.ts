// What the latency-under-load run (bench:responsiveness, 100,001 entries) also checked, on archives a
// hundredth its size: one entry past MAX_ARCHIVE_ENTRIES is counted as skipped, every other entry
// kept, the upload 'ready', and the last page of its contents listed. Its time and memory bounds
// are that benchmark's targets (docs/performance.md).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../src/db/database.js';
import { dialects } from './databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from './factories.js';
import { call, login } from './http.js';
import { startTestServer, type TestServer } from './server.js';
import { upload, waitProcessed } from './uploads.js';

const KEPT = 1_000;
const ARCHIVES = { 'many.zip': ['--format', 'zip'], 'many.tar': ['--format', 'ustar'], 'many.7z': ['--format', '7zip'] } as const;
type Archive = keyof typeof ARCHIVES;

// As the benchmark: the tar (native path) and the 7z (7-Zip in its own process) differ from the zip
// in extraction only, which no database touches.
const cases: { archive: Archive; dialect: Dialect }[] = dialects().flatMap((dialect) => [
  { archive: 'many.zip' as const, dialect },
  ...(dialect === 'sqlite' ? (['many.tar', 'many.7z'] as const).map((archive) => ({ archive, dialect })) : []),
]);

let scratch: string;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-entry-cap-'));
  fs.writeFileSync(path.join(scratch, 'entry.txt'), 'a tiny entry\n');
  const lines = Array.from({ length: KEPT + 1 }, (_, i) => `n${String(i).padStart(6, '0')}.txt type=file mode=0644 contents=entry.txt`);
  fs.writeFileSync(path.join(scratch, 'spec.mtree'), `#mtree\n${lines.join('\n')}\n`);
  for (const [name, format] of Object.entries(ARCHIVES)) execFileSync('bsdtar', [...format, '-cf', name, '@spec.mtree'], { cwd: scratch });
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe.each(cases)('processing $archive of one entry past the cap on $dialect', ({ archive, dialect }) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, { MAX_ARCHIVE_ENTRIES: String(KEPT) }, { jobs: true });
  });
  afterAll(() => server.close());

  it('keeps every entry up to the cap, counts the one past it, and lists the last page', async () => {
    const company = await makeCompany(server.services);
    const token = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
    const project = await makeProject(server.services, company);
    const answer = await upload(server.api, token, { name: archive, data: fs.readFileSync(path.join(scratch, archive)) }, project.id);
    expect(answer.status).toBe(201);
    const file = await waitProcessed(server.api, token, project.id, answer.body.data[0].id);
    expect(file.processing.status).toBe('ready');
    expect(file.processing.summary).toMatchObject({ other: KEPT, skipped: 1, skipped_reasons: { 'too many entries': 1 } });
    const contents = await call(`${server.api}/study-petitions-files/${file.id}/contents?offset=${KEPT - 100}&limit=100`, { token });
    expect(contents.status).toBe(200);
    expect(contents.body.data.page.total).toBe(KEPT);
    expect(contents.body.data.entries).toHaveLength(100);
  });
});
