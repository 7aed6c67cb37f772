/**
 * What a merchant gets from npm, read from the file list `npm pack` would publish: only what a
 * merchant needs (the built code, the guides, the README, the changelog, the licence); no source map
 * that sends a stack trace to a src/*.ts file the tarball leaves out; and every link of the README
 * and the guides, anchors included, resolving inside the tarball.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
let shipped: Set<string>;

beforeAll(() => {
  // The list npm would publish, without running prepack (the CLI tests' global setup built dist/).
  const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
  expect(packed.status, packed.stderr).toBe(0);
  const [pack] = JSON.parse(packed.stdout) as [{ files: { path: string }[] }];
  shipped = new Set(pack.files.map((file) => file.path));
}, 60_000);

describe('the tarball', () => {
  it('holds only what a merchant needs', () => {
    const allowed = /^(dist\/|docs\/[^/]+\.md$|README\.md$|CHANGELOG\.md$|LICENSE$|package\.json$)/;
    expect([...shipped].filter((path) => !allowed.test(path))).toEqual([]);
    for (const path of ['README.md', 'LICENSE', 'package.json', 'dist/index.js', 'dist/index.cjs', 'dist/cli.js', 'docs/webhooks.md'])
      expect(shipped.has(path), path).toBe(true);
    expect(shipped.has('CONTRIBUTING.md')).toBe(false);
  });

  it('has no source map that points at a file it leaves out', () => {
    const code = [...shipped].filter((path) => /\.(c?js|d\.c?ts)$/.test(path));
    expect(code.length).toBeGreaterThan(10);
    for (const path of code) {
      const mapped = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(root, path), 'utf8'))?.[1];
      if (mapped === undefined) continue;
      const mapPath = normalize(join(dirname(path), mapped));
      expect(shipped.has(mapPath), `${path} → ${mapped}`).toBe(true);
      const map = JSON.parse(readFileSync(join(root, mapPath), 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
      map.sources.forEach((source, i) => {
        const inlined = typeof map.sourcesContent?.[i] === 'string';
        expect(inlined || shipped.has(normalize(join(dirname(mapPath), source))), `${mapPath}: ${source}`).toBe(true);
      });
    }
  });

  it('gives stack traces that point at shipped files, even with --enable-source-maps', () => {
    const script = `import('${join(root, 'dist/index.js')}').then(({ PaymentsClient }) => {
      try { new PaymentsClient({ apiKey: 'sk_test_x', baseUrl: 'ftp://x' }); } catch (error) { console.log(error.stack); }
    });`;
    const run = spawnSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.stdout).toMatch(/baseUrl must use http or https/);
    const frames = run.stdout.split('\n').filter((line) => line.trim().startsWith('at '));
    expect(frames.some((frame) => frame.includes(join(root, 'dist/')))).toBe(true);
    expect(frames.filter((frame) => frame.includes('/src/') || frame.includes('.ts:'))).toEqual([]);
  });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings (a repeated heading gets `-1`, `-2`…). */
function anchorsOf(path: string): Set<string> {
  const anchors = new Set<string>();
  const text = readFileSync(join(root, path), 'utf8').replace(/```[\s\S]*?```/g, '');
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = slug(heading as string);
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

describe('links of the README and the guides', () => {
  it('resolve to shipped files and to headings that exist, for a merchant with only the tarball', () => {
    const guides = [...shipped].filter((path) => path.endsWith('.md'));
    expect(guides).toContain('README.md');
    const broken: string[] = [];
    for (const guide of guides) {
      const text = readFileSync(join(root, guide), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, link] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(link as string)) continue;
        const [file, anchor] = (link as string).split('#') as [string, string | undefined];
        const target = file === '' ? guide : normalize(join(dirname(guide), file));
        if (!shipped.has(target)) broken.push(`${guide} → ${link}: ${target} is not in the tarball`);
        else if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(target).has(anchor))
          broken.push(`${guide} → ${link}: no such heading in ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
