// The import rules of eslint.config.js bite: sources that break them, linted at real paths of the
// server with the repository's own configuration, are reported. Nothing is written to disk: each
// probe is linted as the new text of an existing file. One ESLint run lints every probe (only the
// boundaries rules, without type information: they read imports, and a typed parse per probe cost
// the suite seconds each); each case then checks what was reported for its probe.
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Probe {
  name: string;
  /** The existing file whose text the probe replaces. */
  file: string;
  code: string;
  check(problems: string[]): void;
}

const UPLOAD_RULES_CYCLE =
  'boundaries/no-cycle: Dependency cycle: server/src/uploads/upload-rules.ts → server/src/uploads/uploads.service.ts → server/src/uploads/upload-rules.ts';

const PROBES: Probe[] = [
  {
    name: 'reports an import that closes a cycle between modules',
    // uploads.service.ts imports upload-rules.ts: upload-rules importing it back closes the loop.
    file: 'server/src/uploads/upload-rules.ts',
    code: "import { UploadsService } from './uploads.service.js';\nexport const probe = UploadsService;\n",
    check: (problems) => expect(problems).toContain(UPLOAD_RULES_CYCLE),
  },
  {
    name: 'reports a cycle closed by a type-only import too',
    file: 'server/src/uploads/upload-rules.ts',
    code: "import type { UploadsService } from './uploads.service.js';\nexport type Probe = UploadsService;\n",
    check: (problems) => expect(problems).toContain(UPLOAD_RULES_CYCLE),
  },
  {
    name: "reports a feature importing another feature's internals",
    file: 'server/src/projects/project.presenter.ts',
    code: "import { presentFile } from '../files/file.presenter.js';\nexport const probe = presentFile;\n",
    check: (problems) =>
      expect(problems).toContain("boundaries/restricted-paths: '../files/file.presenter.js' may not be imported here: another feature's internals: import its index.ts"),
  },
  {
    name: "reports single sign-on (sso/) importing another feature's internals: every folder of server/src is a feature unless named otherwise",
    file: 'server/src/sso/address-limit.ts',
    code: "import { UsersRepository } from '../users/users.repository.js';\nexport const probe = UsersRepository;\n",
    check: (problems) =>
      expect(problems).toContain("boundaries/restricted-paths: '../users/users.repository.js' may not be imported here: another feature's internals: import its index.ts"),
  },
  // The upload rooms import downwards only: tus → deliveries → uploads → files, and processing → files.
  ...(
    [
      ['files', 'uploads', 'server/src/files/file.presenter.ts', '../uploads/index.js', 'files/ imports none of uploads/, deliveries/, tus/, processing/'],
      ['uploads', 'deliveries', 'server/src/uploads/upload-rules.ts', '../deliveries/index.js', 'uploads/ imports none of deliveries/, tus/, processing/'],
      ['deliveries', 'tus', 'server/src/deliveries/delivery-paths.ts', '../tus/tus-direct.js', 'deliveries/ imports none of tus/, processing/'],
      ['tus', 'processing', 'server/src/tus/tus-shared.ts', '../processing/process-upload.job.js', 'tus/ imports none of processing/'],
      ['processing', 'uploads', 'server/src/processing/entry-recorder.ts', '../uploads/index.js', 'processing/ imports none of uploads/, deliveries/, tus/'],
    ] as const
  ).map(
    ([room, above, file, specifier, message]): Probe => ({
      name: `reports ${room}/ importing ${above}/`,
      file,
      code: `import * as above from '${specifier}';\nexport const probe = above;\n`,
      check: (problems) =>
        expect(problems).toContain(
          `boundaries/restricted-paths: '${specifier}' may not be imported here: ${message}: the upload rooms import downwards only (tus → deliveries → uploads → files; processing → files)`,
        ),
    }),
  ),
  {
    name: 'lets a feature use another through its index.ts',
    file: 'server/src/companies/company.presenter.ts',
    code: "import { can } from '../auth/index.js';\nexport const probe = can;\n",
    check: (problems) => expect(problems).toEqual([]),
  },
  {
    name: 'reports a cycle between feature folders, even through their public index.ts',
    // auth imports users (to sign people in): users importing auth back makes the folders a cycle.
    file: 'server/src/users/user.presenter.ts',
    code: "import { can } from '../auth/index.js';\nexport const probe = can;\n",
    check: (problems) => expect(problems).toEqual([expect.stringMatching(/^boundaries\/no-cycle: Folder cycle: users → auth → users /)]),
  },
  {
    name: 'reports the pure engine reaching into the application',
    file: 'server/src/ingest/summary.ts',
    code: "import { loadConfig } from '../config/config.js';\nexport const probe = loadConfig;\n",
    check: (problems) => expect(problems).toContainEqual(expect.stringContaining('ingest/ is the pure engine')),
  },
  {
    name: 'reports a feature reaching for the composition root instead of receiving what it needs',
    file: 'server/src/files/files.routes.ts',
    code: "import { createServices } from '../services.js';\nexport const probe = createServices;\n",
    check: (problems) => expect(problems).toContainEqual(expect.stringContaining('composition root')),
  },
];

describe('import boundaries', () => {
  const found = new Map<string, string[]>();
  beforeAll(async () => {
    const eslint = new ESLint({
      cwd: ROOT,
      ruleFilter: ({ ruleId }) => ruleId.startsWith('boundaries/'),
      overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
    });
    for (const probe of PROBES) {
      const [result] = await eslint.lintText(probe.code, { filePath: path.join(ROOT, probe.file) });
      found.set(probe.name, result!.messages.map((m) => (m.ruleId ? `${m.ruleId}: ${m.message}` : `${m.message}`)));
    }
  }, 60_000);

  it.each(PROBES)('$name', (probe) => {
    const messages = found.get(probe.name)!;
    // A parse error would hide every rule's report: it fails the case instead of passing it unseen.
    expect(messages.filter((m) => !m.startsWith('boundaries/'))).toEqual([]);
    probe.check(messages);
  });
});
