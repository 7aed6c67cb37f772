/**
 * docs/runtimes.md quotes the runtime examples that `npm run test:runtimes` runs
 * (examples/runtimes/), verbatim, and gives the Deno flags that run uses; the README sends
 * Workers, Deno and Bun users there from Install.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const guide = read('docs/runtimes.md');
const quoted = [...guide.matchAll(/<!-- from (examples\/runtimes\/[^ ]+) -->\n```ts\n([\s\S]*?)```/g)].map(([, file, code]) => ({
  file: file as string,
  code: code as string,
}));

describe('docs/runtimes.md', () => {
  it('quotes every runtime example', () => {
    expect(quoted.map((q) => q.file).sort()).toEqual([
      'examples/runtimes/bun-server.ts',
      'examples/runtimes/checkout_test.ts',
      'examples/runtimes/deno-server.ts',
      'examples/runtimes/worker.ts',
    ]);
  });

  it.each(quoted.map((q) => [q.file, q] as const))('%s is quoted verbatim, from its first import on', (file, { code }) => {
    const source = read(file);
    expect(code.startsWith('import ')).toBe(true);
    expect(source.endsWith(code)).toBe(true);
  });

  it('gives the Deno permission flags that the tested run uses', () => {
    const flag = /DENO_ENV_FLAG = '([^']+)'/.exec(read('scripts/runtime-examples.ts'))?.[1];
    expect(flag).toBeDefined();
    expect(guide).toContain(`deno run ${flag} \\`);
    expect(read('examples/runtimes/deno-server.ts')).toContain(`deno run ${flag} \\`);
  });

  it('is linked from the README Install section, which no longer calls the webhooks entry "about 5 KB"', () => {
    const readme = read('README.md');
    const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('## Quickstart'));
    expect(install).toContain('(docs/runtimes.md)');
    expect(readme).not.toMatch(/webhooks`? alone is about 5 KB/);
  });
});
