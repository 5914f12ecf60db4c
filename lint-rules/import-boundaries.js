// Import rules the repository enforces with ESLint but without eslint-plugin-import-x, whose
// resolver's platform packages this registry does not serve (docs/dependencies.md): relative
// imports are resolved here, and other files are read with the TypeScript compiler already
// installed. The option shapes follow import-x (no-cycle, no-restricted-paths) so the rules can be
// swapped for it later.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

function isFile(file) {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The file a relative specifier names ('./x.js' is './x.ts' in TypeScript sources); null for packages. */
export function resolveImport(fromFile, specifier) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return null;
  const base = path.resolve(path.dirname(fromFile), specifier);
  const js = /\.(m|c)?jsx?$/;
  const candidates = js.test(base)
    ? [base.replace(js, '.ts'), base.replace(js, '.tsx'), base]
    : [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')];
  return candidates.find(isFile) ?? null;
}

/** Import and re-export specifiers of a file on disk, type-only ones included; cached by modification time. */
const parsed = new Map();
function importsOnDisk(file) {
  let mtime;
  try {
    mtime = fs.statSync(file).mtimeMs;
  } catch {
    return [];
  }
  const cached = parsed.get(file);
  if (cached && cached.mtime === mtime) return cached.imports;
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const imports = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      imports.push(statement.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
      imports.push(statement.moduleSpecifier.text);
    }
  }
  parsed.set(file, { mtime, imports });
  return imports;
}

/** Imports of the file being linted, type-only ones included, from its AST (its text may not be on disk yet). */
function importsInAst(ast) {
  const found = [];
  for (const node of ast.body) {
    if (node.type === 'ImportDeclaration') {
      found.push({ node, specifier: node.source.value });
    } else if ((node.type === 'ExportNamedDeclaration' || node.type === 'ExportAllDeclaration') && node.source) {
      found.push({ node, specifier: node.source.value });
    }
  }
  return found;
}

function relativeTo(cwd, file) {
  return path.relative(cwd, file).split(path.sep).join('/');
}

/** A path inside one of the given files or folders (repository-relative, '/'-separated). */
function within(rel, places) {
  return places.some((place) => rel === place || rel.startsWith(`${place.replace(/\/$/, '')}/`));
}

function list(value) {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

const noCycle = {
  meta: {
    type: 'problem',
    // Type-only imports count: a cycle through them still ties the modules together (one cannot be
    // read, moved or tested without the other), and a types file of its own breaks it.
    docs: { description: 'Forbids an import that leads back to the importing module, and one that closes a cycle between top-level folders of a source root, type imports included.' },
    schema: [
      {
        type: 'object',
        properties: { folders: { type: 'array', items: { type: 'string' } } },
        additionalProperties: false,
      },
    ],
    messages: {
      cycle: 'Dependency cycle: {{path}}',
      folderCycle: 'Folder cycle: {{path}} (folders of {{root}} must form no cycle, type imports included)',
    },
  },
  create(context) {
    const cwd = context.cwd;
    const self = path.resolve(context.filename);
    const roots = list(context.options[0]?.folders).map((root) => path.resolve(cwd, root));

    /** A module path from `start` back to the linted file, or null. */
    function pathBack(start) {
      const seen = new Set();
      const walk = (file, trail) => {
        if (file === self) return trail;
        if (seen.has(file)) return null;
        seen.add(file);
        for (const specifier of importsOnDisk(file)) {
          const next = resolveImport(file, specifier);
          if (next === null) continue;
          const found = walk(next, [...trail, next]);
          if (found) return found;
        }
        return null;
      };
      return walk(start, [start]);
    }

    const root = roots.find((r) => self.startsWith(r + path.sep));
    const nodeOf = (file) => path.relative(root, file).split(path.sep)[0];

    /** Folder-level edges of the root, from every source on disk except the linted file. */
    function folderGraph() {
      const edges = new Map();
      const visit = (dir) => {
        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
          const full = path.join(dir, entry.name);
          if (entry.isDirectory()) visit(full);
          else if (/\.tsx?$/.test(entry.name) && full !== self) {
            const from = nodeOf(full);
            for (const specifier of importsOnDisk(full)) {
              const target = resolveImport(full, specifier);
              if (target === null || !target.startsWith(root + path.sep)) continue;
              const to = nodeOf(target);
              if (to === from) continue;
              if (!edges.has(from)) edges.set(from, new Set());
              edges.get(from).add(to);
            }
          }
        }
      };
      visit(root);
      return edges;
    }

    function folderPath(edges, start, goal) {
      const seen = new Set();
      const walk = (node, trail) => {
        if (node === goal) return trail;
        if (seen.has(node)) return null;
        seen.add(node);
        for (const next of edges.get(node) ?? []) {
          const found = walk(next, [...trail, next]);
          if (found) return found;
        }
        return null;
      };
      return walk(start, [start]);
    }

    return {
      'Program:exit'(program) {
        let edges = null;
        for (const { node, specifier } of importsInAst(program)) {
          const target = resolveImport(self, specifier);
          if (target === null) continue;
          const crossesFolders = root !== undefined && target.startsWith(root + path.sep) && nodeOf(self) !== nodeOf(target);
          // Between folders the folder cycle is reported: a module cycle there is always one too,
          // and the folders are what must be untangled.
          if (!crossesFolders) {
            const loop = pathBack(target);
            if (loop) context.report({ node, messageId: 'cycle', data: { path: [self, ...loop].map((f) => relativeTo(cwd, f)).join(' → ') } });
            continue;
          }
          const from = nodeOf(self);
          const to = nodeOf(target);
          edges ??= folderGraph();
          const back = folderPath(edges, to, from);
          if (back) context.report({ node, messageId: 'folderCycle', data: { path: [from, ...back].join(' → '), root: relativeTo(cwd, root) } });
        }
      },
    };
  },
};

const restrictedPaths = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbids imports from `from` (unless in `except`) in files under `target` (unless in `targetExcept`); paths are relative to the repository root.' },
    schema: [
      {
        type: 'object',
        properties: {
          zones: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                target: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
                targetExcept: { type: 'array', items: { type: 'string' } },
                from: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
                except: { type: 'array', items: { type: 'string' } },
                message: { type: 'string' },
              },
              required: ['target', 'from'],
              additionalProperties: false,
            },
          },
        },
        additionalProperties: false,
      },
    ],
    messages: { restricted: "'{{specifier}}' may not be imported here: {{message}}" },
  },
  create(context) {
    const cwd = context.cwd;
    const self = path.resolve(context.filename);
    const rel = relativeTo(cwd, self);
    const zones = (context.options[0]?.zones ?? []).filter((zone) => within(rel, list(zone.target)) && !within(rel, list(zone.targetExcept)));
    if (zones.length === 0) return {};
    return {
      'Program:exit'(program) {
        for (const { node, specifier } of importsInAst(program)) {
          const target = resolveImport(self, specifier);
          if (target === null) continue;
          const targetRel = relativeTo(cwd, target);
          const zone = zones.find((z) => within(targetRel, list(z.from)) && !within(targetRel, list(z.except)));
          if (zone) context.report({ node, messageId: 'restricted', data: { specifier, message: zone.message ?? 'restricted path' } });
        }
      },
    };
  },
};

export default {
  meta: { name: 'import-boundaries' },
  rules: { 'no-cycle': noCycle, 'restricted-paths': restrictedPaths },
};
