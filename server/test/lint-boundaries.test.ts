// The import rules of eslint.config.js bite: sources that break them, linted at real paths of the
// server with the repository's own configuration, are reported. Nothing is written to disk: each
// probe is linted as the new text of an existing file.
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: ROOT });

async function boundaryProblems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result!.messages.filter((m) => m.ruleId?.startsWith('boundaries/')).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('import boundaries', () => {
  it('reports an import that closes a cycle between modules', async () => {
    // uploads.service.ts imports upload-rules.ts: upload-rules importing it back closes the loop.
    const problems = await boundaryProblems('server/src/uploads/upload-rules.ts', "import { UploadsService } from './uploads.service.js';\nexport const probe = UploadsService;\n");
    expect(problems).toContain(
      'boundaries/no-cycle: Dependency cycle: server/src/uploads/upload-rules.ts → server/src/uploads/uploads.service.ts → server/src/uploads/upload-rules.ts',
    );
  }, 60_000);

  it('reports a cycle closed by a type-only import too', async () => {
    const problems = await boundaryProblems('server/src/uploads/upload-rules.ts', "import type { UploadsService } from './uploads.service.js';\nexport type Probe = UploadsService;\n");
    expect(problems).toContain(
      'boundaries/no-cycle: Dependency cycle: server/src/uploads/upload-rules.ts → server/src/uploads/uploads.service.ts → server/src/uploads/upload-rules.ts',
    );
  }, 60_000);

  it("reports a feature importing another feature's internals", async () => {
    const problems = await boundaryProblems('server/src/projects/project.presenter.ts', "import { presentFile } from '../files/file.presenter.js';\nexport const probe = presentFile;\n");
    expect(problems).toContain(
      "boundaries/restricted-paths: '../files/file.presenter.js' may not be imported here: another feature's internals: import its index.ts",
    );
  }, 60_000);

  it("reports single sign-on (sso/) importing another feature's internals: every folder of server/src is a feature unless named otherwise", async () => {
    const problems = await boundaryProblems('server/src/sso/address-limit.ts', "import { UsersRepository } from '../users/users.repository.js';\nexport const probe = UsersRepository;\n");
    expect(problems).toContain(
      "boundaries/restricted-paths: '../users/users.repository.js' may not be imported here: another feature's internals: import its index.ts",
    );
  }, 60_000);

  // The upload rooms import downwards only: tus → deliveries → uploads → files, and processing → files.
  it.each([
    ['files', 'uploads', 'server/src/files/file.presenter.ts', '../uploads/index.js', 'files/ imports none of uploads/, deliveries/, tus/, processing/'],
    ['uploads', 'deliveries', 'server/src/uploads/upload-rules.ts', '../deliveries/index.js', 'uploads/ imports none of deliveries/, tus/, processing/'],
    ['deliveries', 'tus', 'server/src/deliveries/delivery-paths.ts', '../tus/tus-direct.js', 'deliveries/ imports none of tus/, processing/'],
    ['tus', 'processing', 'server/src/tus/tus-shared.ts', '../processing/process-upload.job.js', 'tus/ imports none of processing/'],
    ['processing', 'uploads', 'server/src/processing/entry-recorder.ts', '../uploads/index.js', 'processing/ imports none of uploads/, deliveries/, tus/'],
  ])('reports %s/ importing %s/', async (_room, _above, file, specifier, message) => {
    const problems = await boundaryProblems(file, `import * as above from '${specifier}';\nexport const probe = above;\n`);
    expect(problems).toContain(
      `boundaries/restricted-paths: '${specifier}' may not be imported here: ${message}: the upload rooms import downwards only (tus → deliveries → uploads → files; processing → files)`,
    );
  }, 60_000);

  it('lets a feature use another through its index.ts', async () => {
    const problems = await boundaryProblems('server/src/companies/company.presenter.ts', "import { can } from '../auth/index.js';\nexport const probe = can;\n");
    expect(problems).toEqual([]);
  }, 60_000);

  it('reports a cycle between feature folders, even through their public index.ts', async () => {
    // auth imports users (to sign people in): users importing auth back makes the folders a cycle.
    const problems = await boundaryProblems('server/src/users/user.presenter.ts', "import { can } from '../auth/index.js';\nexport const probe = can;\n");
    expect(problems).toEqual([expect.stringMatching(/^boundaries\/no-cycle: Folder cycle: users → auth → users /)]);
  }, 60_000);

  it('reports the pure engine reaching into the application', async () => {
    const problems = await boundaryProblems('server/src/ingest/summary.ts', "import { loadConfig } from '../config/config.js';\nexport const probe = loadConfig;\n");
    expect(problems).toContainEqual(expect.stringContaining('ingest/ is the pure engine'));
  }, 60_000);

  it('reports a feature reaching for the composition root instead of receiving what it needs', async () => {
    const problems = await boundaryProblems('server/src/files/files.routes.ts', "import { createServices } from '../services.js';\nexport const probe = createServices;\n");
    expect(problems).toContainEqual(expect.stringContaining('composition root'));
  }, 60_000);
});
