// Imported by the repository's eslint.config.js (this file is plain JavaScript, which the lint skips).
import { readdirSync } from 'node:fs';

// Web import boundaries (web/README.md, 'The import rule'): a feature imports components/, lib/,
// api/, the app's providers, the contract and its own files; of another feature only its index.ts.
// Shared folders import no feature and not the app. The names of the features are read from the
// folder, so a new feature is covered without editing this file.
const webFeatures = readdirSync(new URL('src/features/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const webFeatureBoundaries = webFeatures.map((feature) => {
  const others = webFeatures.filter((name) => name !== feature).join('|');
  return {
    files: [`web/src/features/${feature}/**/*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // '../../upload/components/UploadDialog' is refused; '../../upload' (its index) is not.
              regex: `^(\\.\\./)+(features/)?(${others})/(?!index(\\.tsx?)?$)`,
              message: `A feature imports another feature only through its index.ts (web/README.md).`,
            },
          ],
        },
      ],
    },
  };
});
const webSharedBoundaries = {
  files: ['web/src/{api,components,lib}/**/*.{ts,tsx}'],
  ignores: ['**/*.test.{ts,tsx}'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: '^(\\.\\./)+(features|app)(/|$)',
            message: 'Shared web code (api/, components/, lib/) imports no feature and not the app (web/README.md).',
          },
        ],
      },
    ],
  },
};

/** Paths are relative to the repository root, where eslint.config.js lives. */
export const webBoundaries = [...webFeatureBoundaries, webSharedBoundaries];
