/**
 * No module of src/ imports itself back, directly or through others, type-only imports included:
 * a circle makes the load order decide what is defined, and makes the code hard to read top to
 * bottom. The test reads every `import`/`export … from` of src/ and searches the graph for a cycle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative specifiers of every static `import … from`, `import '…'`, `export … from` and `import('…')`. */
function relativeImports(text: string): string[] {
  // Comments out first: a TSDoc example may show an import.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const specifiers = [
    ...code.matchAll(/(?:^|[\s;}])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]/g),
    ...code.matchAll(/(?:^|[\s;])import\s*['"]([^'"]+)['"]/g),
    ...code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((match) => match[1] as string);
  return specifiers.filter((specifier) => specifier.startsWith('.'));
}

/** The import graph of src/: file → the src/ files it imports. */
function importGraph(dir = root): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(dir)) {
    const targets = relativeImports(readFileSync(file, 'utf8')).map((specifier) =>
      resolve(dirname(file), specifier.replace(/\.js$/, '.ts')),
    );
    graph.set(file, targets);
  }
  return graph;
}

/** Every elementary cycle found by a depth-first walk (one per back edge), as lists of paths relative to src/. */
function findCycles(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === 'open') cycles.push([...stack.slice(stack.indexOf(target)), target].map((f) => relative(root, f)));
      else if (!state.has(target) && graph.has(target)) visit(target);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return cycles;
}

describe('src/ has no import cycle', () => {
  it('finds a cycle when there is one (the walker itself works)', () => {
    const graph = new Map([
      ['/a.ts', ['/b.ts']],
      ['/b.ts', ['/c.ts']],
      ['/c.ts', ['/a.ts']],
      ['/d.ts', ['/a.ts']],
    ]);
    expect(findCycles(graph).map((cycle) => cycle.length)).toEqual([4]);
  });

  it('reads type-only, re-export, side-effect and dynamic imports', () => {
    const text = [
      "import type { A } from './a.js';",
      "export { B } from './b.js';",
      "import './c.js';",
      "const d = await import('./d.js');",
      "import { e } from 'zod/mini';",
      "// import { f } from './f.js';",
    ].join('\n');
    expect(relativeImports(text)).toEqual(['./a.js', './b.js', './c.js', './d.js']);
  });

  it('every file of src/ is outside any cycle', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(50);
    expect(findCycles(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });
});
