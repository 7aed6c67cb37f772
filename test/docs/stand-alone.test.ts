/**
 * Code, tests, scripts, benchmarks and examples read on their own: a comment describes the
 * service's behaviour in its own words or cites a document of the repository (docs/service.md, the
 * README or a docs/ guide), never a document kept outside it nor a tracker's issue number, which a
 * reader of the package or of a fork cannot open.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const folders = ['src', 'test', 'scripts', 'bench', 'examples'];

/** Built from parts so that this file does not match itself. */
const outside = [
  { name: 'the outside service description', pattern: new RegExp(['service', 'api'].join('-'), 'i') },
  { name: 'the outside contract document', pattern: new RegExp(['API', 'md'].join('\\.'), 'i') },
  { name: 'an issue number', pattern: new RegExp(['issue', '#?[0-9]'].join('s? '), 'i') },
];

/** Every file git tracks under `dir` (relative to the root): build output and installs left out. */
function filesUnder(dir: string): string[] {
  return execFileSync('git', ['ls-files', '-z', '--', dir], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
}

const files = folders.flatMap(filesUnder);

describe('files that stand alone', () => {
  it('scans the source, test, script, benchmark and example folders', () => {
    for (const folder of folders) expect(files.some((path) => path.startsWith(`${folder}/`))).toBe(true);
  });

  it('cite no document outside the repository and no issue number', () => {
    const found: string[] = [];
    for (const path of files) {
      const lines = readFileSync(join(root, path), 'utf8').split('\n');
      lines.forEach((line, index) => {
        for (const { name, pattern } of outside) {
          if (pattern.test(line)) found.push(`${path}:${index + 1} cites ${name}: ${line.trim()}`);
        }
      });
    }
    expect(found).toEqual([]);
  });

  it('catches each kind of citation it is meant to catch', () => {
    const issue = 'Issue';
    const samples = [
      `${['service', 'api'].join('-')}.md §5.2`,
      `${['API', 'md'].join('.')} "Client"`,
      `see ${issue} 12`,
      `${issue.toLowerCase()} #4`,
    ];
    for (const sample of samples) expect(outside.some(({ pattern }) => pattern.test(sample))).toBe(true);
    expect(outside.some(({ pattern }) => pattern.test('zod issues are listed'))).toBe(false);
  });
});
