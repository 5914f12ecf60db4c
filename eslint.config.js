// One lint tool for the whole repository; typed rules catch floating and misused promises.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import { readdirSync } from 'node:fs';
import globals from 'globals';
import boundaries from './lint-rules/import-boundaries.js';
import { webBoundaries } from './web/eslint-boundaries.js';

// The server's layout (docs/architecture.md). Features own a slice of the API and reach each other
// only through an index.ts; engines (ingest/, jobs/) know no feature; infrastructure serves all.
const server = (p) => `server/src/${p}`;
/** Engines and the files others may import; the limits let config read them without loading the engine. */
const ENGINES = { ingest: ['index.ts', 'limits.ts'], jobs: ['index.ts'] };
// quota/ (free space, allowances, the storage-full answer) is read by the error handler too;
// events/ is the typed announcer the rooms receive, knowing no event of theirs.
const INFRASTRUCTURE = ['config', 'db', 'errors', 'events', 'http', 'mail', 'openapi', 'quota', 'storage'];
const ROOT_FILES = ['app.ts', 'main.ts', 'serve.ts', 'services.ts', 'source-maps.ts', 'work.ts', 'worker.ts'];
// Every other folder of server/src is a feature, read from the disk as the web app's are
// (web/eslint-boundaries.js): a new folder is held to the rules without editing this file.
const FEATURES = readdirSync(new URL('server/src/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !(entry.name in ENGINES) && !INFRASTRUCTURE.includes(entry.name))
  .map((entry) => entry.name);
// The rooms an upload passes through, and which of them each may import (docs/architecture.md):
// tus → deliveries → uploads → files, and processing (the job handlers) → files. files/ is the
// catalogue all of them build on, and holds the job definitions, so queueing a job never imports
// the code that runs it; only the composition root registers processing's handlers.
const ROOMS = {
  files: [],
  uploads: ['files'],
  deliveries: ['uploads', 'files'],
  tus: ['deliveries', 'uploads', 'files'],
  processing: ['files'],
};

const serverZones = [
  // DICOMweb sits above deliveries/ (STOW-RS hands each part to a delivery, as tus does): it may
  // import deliveries/, uploads/ and files/, never tus/ or processing/.
  { target: server('dicomweb'), from: ['tus', 'processing'].map(server), message: 'dicomweb/ imports deliveries/, uploads/ and files/ only of the upload rooms' },
  // First, so that a room reaching upwards is told so, even for a file other than the room's index.ts.
  ...Object.entries(ROOMS).map(([room, below]) => {
    const above = Object.keys(ROOMS).filter((other) => other !== room && !below.includes(other));
    return {
      target: server(room),
      from: above.map(server),
      message: `${room}/ imports none of ${above.map((r) => `${r}/`).join(', ')}: the upload rooms import downwards only (tus → deliveries → uploads → files; processing → files)`,
    };
  }),
  ...FEATURES.map((feature) => {
    const others = FEATURES.filter((f) => f !== feature);
    return {
      target: server(feature),
      from: others.map(server),
      except: others.map((f) => server(`${f}/index.ts`)),
      message: "another feature's internals: import its index.ts",
    };
  }),
  ...Object.entries(ENGINES).map(([engine, entries]) => ({
    target: 'server/src',
    targetExcept: [server(engine)],
    from: server(engine),
    except: entries.map((file) => server(`${engine}/${file}`)),
    message: `${engine}/ is used through ${entries.join(' or ')}`,
  })),
  {
    target: server('ingest'),
    from: [...FEATURES, ...INFRASTRUCTURE, 'jobs', ...ROOT_FILES].map(server),
    message: 'ingest/ is the pure engine: no database, HTTP, storage, configuration or feature',
  },
  {
    target: server('jobs'),
    from: [...FEATURES, 'ingest', 'config', 'http', 'storage', ...ROOT_FILES].map(server),
    message: 'jobs/ runs any kind and knows none: kinds are registered in services.ts',
  },
  {
    target: INFRASTRUCTURE.map(server),
    from: [...FEATURES, 'jobs', ...ROOT_FILES].map(server),
    message: 'infrastructure serves features and knows none',
  },
  {
    target: 'server/src',
    // app.ts is the HTTP half of the composition: it mounts each feature's routes on its service.
    targetExcept: [server('serve.ts'), server('work.ts'), server('services.ts'), server('app.ts'), server('admin')],
    from: server('services.ts'),
    message: 'only serve.ts, work.ts (started by main.ts and worker.ts), app.ts and the admin CLI use the composition root; others receive what they need',
  },
];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'e2e/screenshots/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['server/src/**/*.ts'],
    plugins: { boundaries },
    rules: {
      'boundaries/no-cycle': ['error', { folders: ['server/src'] }],
      'boundaries/restricted-paths': ['error', { zones: serverZones }],
    },
  },
  {
    files: ['web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      ...reactHooks.configs.recommended.rules,
    },
  },
  ...webBoundaries,
  {
    // The de-identification engine runs unchanged in browsers and in Node (tsconfig.src.json checks
    // it without Node's types as well).
    files: ['deid/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*'], message: 'deid/src runs in browsers too: no Node modules' }] }],
    },
  },
  {
    // The command-line uploader shares the contract and the de-identification engine with the web
    // app (packages), never another workspace's files; its tests may start a portal as e2e does.
    files: ['cli/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/web/**', '**/server/**', '**/e2e/**', '**/bench/**'], message: 'cli/src uses @portal/contract and @portal/deid, not the files of another workspace' }] }],
    },
  },
  {
    files: ['**/*.test.ts', '**/*.test.tsx', '**/test/**/*.ts', 'e2e/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      // Tests read JSON answers loosely and assert on them; the assertions are the type check.
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
