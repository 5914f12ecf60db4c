import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The repository's own lint config, run on throwaway code placed at real paths (web/README.md, 'The import rule').
const root = path.resolve(import.meta.dirname, '../../..');
const eslint = new ESLint({ cwd: root });
const inProjects = path.join(root, 'web/src/features/projects/components/ProjectsTree.tsx');
const inLib = path.join(root, 'web/src/lib/format.ts');

async function boundaryErrors(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('web import boundaries (eslint.config.js)', { timeout: 60_000 }, () => {
  it("refuses a feature importing another feature's internal file", async () => {
    const errors = await boundaryErrors(
      "import { FilesTable } from '../../project/components/FilesTable';\nexport const Table = FilesTable;\n",
      inProjects,
    );
    expect(errors).toEqual([expect.stringContaining('A feature imports another feature only through its index.ts')]);
  });

  it("accepts a feature's own files, the shared folders and another feature's index", async () => {
    const code = [
      "import { useProjectsPage } from '../api/get-projects';",
      "import { projectFilesQueryOptions } from '../../../api/get-project-files';",
      "import { useNotify } from '../../../components/use-notify';",
      "import { UploadDialog } from '../../upload';",
      'export const used = [useProjectsPage, projectFilesQueryOptions, useNotify, UploadDialog];',
      '',
    ].join('\n');
    const [result] = await eslint.lintText(code, { filePath: inProjects });
    expect(result?.messages).toEqual([]);
  });

  it('refuses shared code importing a feature', async () => {
    const errors = await boundaryErrors(
      "import { useProjectsPage } from '../features/projects/api/get-projects';\nexport const hook = useProjectsPage;\n",
      inLib,
    );
    expect(errors).toEqual([expect.stringContaining('imports no feature and not the app')]);
  });
});
