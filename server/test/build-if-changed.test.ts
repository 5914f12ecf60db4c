import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildIfChanged, PORTAL_TARGETS, type BuildTarget } from '../scripts/build-if-changed.js';

/** A real build: a child process that writes its product and counts how often it ran. */
function target(root: string, script = "fs.mkdirSync('out',{recursive:true});fs.writeFileSync('out/app.js','built');fs.appendFileSync('runs','x')"): BuildTarget {
  return {
    name: 'app',
    inputs: ['src', 'config.json'],
    product: 'out/app.js',
    stamp: 'out/.build-fingerprint',
    command: [process.execPath, '-e', `const fs=require('node:fs');${script}`],
  };
}

describe('npm start builds only what changed', () => {
  let root: string;
  const runs = () => (fs.existsSync(path.join(root, 'runs')) ? fs.readFileSync(path.join(root, 'runs'), 'utf8').length : 0);
  const quiet = () => undefined;

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-build-'));
    fs.mkdirSync(path.join(root, 'src', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(root, 'src', 'deep', 'main.ts'), 'export const a = 1;');
    fs.writeFileSync(path.join(root, 'config.json'), '{}');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('builds the first time, then not again until a source changes', () => {
    expect(buildIfChanged(root, [target(root)], false, quiet)).toEqual(['app']);
    expect(buildIfChanged(root, [target(root)], false, quiet)).toEqual([]);
    expect(runs()).toBe(1);

    fs.writeFileSync(path.join(root, 'src', 'deep', 'main.ts'), 'export const a = 2;');
    expect(buildIfChanged(root, [target(root)], false, quiet)).toEqual(['app']);
    fs.writeFileSync(path.join(root, 'src', 'new-file.ts'), '');
    expect(buildIfChanged(root, [target(root)], false, quiet)).toEqual(['app']);
    expect(runs()).toBe(3);
  });

  it('ignores tests, rebuilds a wiped output, and always builds when forced', () => {
    buildIfChanged(root, [target(root)], false, quiet);
    fs.writeFileSync(path.join(root, 'src', 'main.test.ts'), 'it()');
    expect(buildIfChanged(root, [target(root)], false, quiet)).toEqual([]);

    fs.rmSync(path.join(root, 'out'), { recursive: true });
    expect(buildIfChanged(root, [target(root)], false, quiet)).toEqual(['app']);
    expect(buildIfChanged(root, [target(root)], true, quiet)).toEqual(['app']);
    expect(runs()).toBe(3);
  });

  it('reports a failed build and keeps no fingerprint, so the next start tries again', () => {
    const failing = target(root, "fs.mkdirSync('out',{recursive:true});process.exit(3)");
    expect(() => buildIfChanged(root, [failing], false, quiet)).toThrow('building the app failed');
    expect(fs.existsSync(path.join(root, 'out', '.build-fingerprint'))).toBe(false);
  });

  it('rebuilds when a setting that shapes the output differs from the last build, as after the e2e build', () => {
    const shaped = { ...target(root), settings: ['PORTAL_TEST_BUILD_SETTING'] };
    const withSetting = (value: string | undefined) => {
      const before = process.env.PORTAL_TEST_BUILD_SETTING;
      if (value === undefined) delete process.env.PORTAL_TEST_BUILD_SETTING;
      else process.env.PORTAL_TEST_BUILD_SETTING = value;
      try {
        return buildIfChanged(root, [shaped], false, quiet);
      } finally {
        if (before === undefined) delete process.env.PORTAL_TEST_BUILD_SETTING;
        else process.env.PORTAL_TEST_BUILD_SETTING = before;
      }
    };
    expect(withSetting('5')).toEqual(['app']);
    expect(withSetting('5')).toEqual([]);
    expect(withSetting(undefined)).toEqual(['app']);
    expect(withSetting(undefined)).toEqual([]);
    expect(runs()).toBe(2);
  });

  it('watches every source folder and lock file of the real portal build', () => {
    const repo = path.resolve(import.meta.dirname, '..', '..');
    for (const t of PORTAL_TARGETS) {
      for (const input of t.inputs) expect(fs.existsSync(path.join(repo, input)), `${t.name}: ${input}`).toBe(true);
    }
  });
});
