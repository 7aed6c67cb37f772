/**
 * The README is for merchants, in the order they read it, and ships with the package: every file it
 * or a docs/ guide links to must ship too. (Its TypeScript snippets are type-checked against the
 * packed package by `npm run test:consumer`.)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown> & { files: string[] };
const guides = ['README.md', ...readdirSync(join(root, 'docs')).map((file) => `docs/${file}`)];

/** `true` when npm packs `path` (relative to the root) under package.json `files` (or always ships it). */
function ships(path: string): boolean {
  if (path === 'package.json' || /^(README|LICENSE)(\.md)?$/i.test(path)) return true;
  return pkg.files.some((entry) => path === entry || path.startsWith(`${entry}/`));
}

describe('README.md', () => {
  it('is under 24 KB: each idea said once, its depth in a docs/ guide, not back in the README', () => {
    const size = Buffer.byteLength(readme);
    expect(size).toBeGreaterThan(20_000);
    expect(size).toBeLessThan(24_000);
  });

  it('has its sections in the order a merchant reads them, Development near the end', () => {
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    const order = [
      'Install',
      'Quickstart',
      'Configuration',
      'Resources',
      'Pagination',
      'Idempotency and retries',
      'Errors',
      'Webhooks',
      'Stores',
      'Bulk payouts',
      'Reconciliation',
      'Testing kit',
      'Telemetry',
      'Command line',
      'Runtime support',
      'FAQ',
      'Development',
      'License',
    ];
    // In this order; a section added between them is fine.
    expect(headings.filter((heading) => order.includes(heading as string))).toEqual(order);
    expect(headings[0]).toBe('Install');
    expect(headings.at(-2)).toBe('Development');
  });

  it('states the Node story once: Node.js 22+ at run time, the toolchain brings its own', () => {
    expect(readme).not.toMatch(/Node(\.js)? 20 or newer|npm run example/);
    expect(readme).toMatch(/Node\.js 22 or newer/);
    expect(readme).toMatch(/the toolchain brings its own\s+Node\.js/);
    const development = readme.slice(readme.indexOf('## Development'));
    expect(development).toMatch(/npm install\nnpm test/);
    // CONTRIBUTING.md does not ship: the README links it on GitHub.
    expect(development).toContain('(https://github.com/payments-sdk/payments-sdk/blob/main/CONTRIBUTING.md)');
  });

  it('says plainly that a captured delivery verifies forever, and what to do about it', () => {
    expect(readme).toMatch(/without a timestamp/);
    expect(readme).toMatch(/verifies forever/);
    expect(readme).toMatch(/after a restart[^.]*runs your handler again/);
    expect(readme).toMatch(/durable store/);
    expect(readme).toMatch(/re-read\s+the resource/);
  });
});

describe('links in README.md and docs/', () => {
  it.each(guides)('%s links only to files that exist and ship', (guide) => {
    const text = readFileSync(join(root, guide), 'utf8');
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
    const local = links.filter((link) => !/^[a-z]+:/i.test(link) && !link.startsWith('#'));
    for (const link of local) {
      // What the package does not ship for a merchant: the examples and the contributors' guide.
      expect(link, `${guide} → ${link}`).not.toMatch(/(^|\/)(examples\/|CONTRIBUTING\.md)/);
      const path = relative(root, normalize(join(root, dirname(guide), link.split('#')[0] as string)));
      expect(existsSync(join(root, path)), `${guide} → ${link}`).toBe(true);
      expect(ships(path), `${guide} → ${link}: not in package.json files`).toBe(true);
    }
    expect(ships(guide)).toBe(true);
  });

  it('package.json says where the repository, home page and issues are', () => {
    expect(pkg.repository).toMatchObject({ type: 'git', url: expect.stringMatching(/^git\+https:\/\//) });
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.bugs).toMatchObject({ url: expect.stringMatching(/^https:\/\//) });
  });
});
