import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

// No import cycles in web/src. eslint-plugin-import-x (no-cycle) cannot be installed from this
// registry (docs/dependencies.md), so dependency-cruiser, already the repository's cycle checker, runs here.
const webDir = path.resolve(import.meta.dirname, '../..');

async function cruiseCycles(baseDir: string, roots: string[]): Promise<{ cruised: number; cycles: string[] }> {
  const { output } = await cruise(roots, {
    baseDir,
    validate: true,
    ruleSet: { forbidden: [{ name: 'no-circular', severity: 'error', from: {}, to: { circular: true } }] },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
  });
  const result = output as ICruiseResult;
  return {
    // Modules whose imports were resolved: proves the cruise read the code and did not stop at the roots.
    cruised: result.modules.filter((m) => m.dependencies.some((d) => !d.couldNotResolve && !d.coreModule)).length,
    cycles: result.summary.violations.map((v) => [v.from, ...(v.cycle ?? []).map((step) => step.name)].join(' → ')),
  };
}

describe('web import cycles', { timeout: 60_000 }, () => {
  it('finds none in web/src', async () => {
    const { cruised, cycles } = await cruiseCycles(webDir, ['src']);
    expect(cruised).toBeGreaterThan(50);
    expect(cycles).toEqual([]);
  });

  it('reports a cycle when one exists', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'web-cycle-'));
    try {
      writeFileSync(path.join(dir, 'a.ts'), "import { b } from './b';\nexport const a = () => b;\n");
      writeFileSync(path.join(dir, 'b.ts'), "import { a } from './a';\nexport const b = () => a;\n");
      expect((await cruiseCycles(dir, ['.'])).cycles).toEqual([expect.stringMatching(/a\.ts → b\.ts → a\.ts|b\.ts → a\.ts → b\.ts/)]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
