import { gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

// Issue 5 item 6: the JavaScript a first visit downloads must stay within this budget.
const INITIAL_JS_BUDGET_KB = 300;

/** Prints the gzipped size of the entry chunk plus everything it imports statically. */
function reportInitialJsSize(): Plugin {
  return {
    name: 'report-initial-js-size',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = new Map(
        Object.values(bundle).flatMap((item) => (item.type === 'chunk' ? [[item.fileName, item] as const] : [])),
      );
      const initial = new Set<string>();
      const visit = (fileName: string): void => {
        const chunk = chunks.get(fileName);
        if (!chunk || initial.has(fileName)) return;
        initial.add(fileName);
        chunk.imports.forEach(visit);
      };
      for (const chunk of chunks.values()) if (chunk.isEntry) visit(chunk.fileName);
      const bytes = [...initial].reduce((sum, name) => sum + gzipSync(chunks.get(name)?.code ?? '').length, 0);
      const kb = bytes / 1024;
      const line = `Initial JS: ${kb.toFixed(1)} KB gzipped in ${initial.size} chunk(s) (budget ${INITIAL_JS_BUDGET_KB} KB)`;
      if (kb > INITIAL_JS_BUDGET_KB) this.error(line);
      // The build's own output is the place people look for this number.
      console.log(`\n${line}`);
    },
  };
}

export default defineConfig({
  plugins: [react(), reportInitialJsSize()],
  // The gzipped budget above is the limit that matters; Rollup's raw-size warning would only repeat it.
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1000 },
  server: { proxy: { '/api': 'http://localhost:8080' } },
  preview: { proxy: { '/api': 'http://localhost:8080' } },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
    // MUI in jsdom is slow to query by role; the default 5 s is too tight on a loaded machine.
    testTimeout: 20_000,
  },
});
