/**
 * The CLI tests run the BUILT bin (dist/cli.js) as a child process, as `npx payments-sdk` does. This
 * builds it once per run when it is missing or older than a source file; a fresh build is reused.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

export default function setup(): void {
  const bin = join(root, 'dist/cli.js');
  const inputs = Math.max(
    newestSource(join(root, 'src')),
    statSync(join(root, 'tsup.config.ts')).mtimeMs,
    statSync(join(root, 'package.json')).mtimeMs,
    // A new tsup or esbuild in the lockfile may build differently: rebuild.
    statSync(join(root, 'package-lock.json')).mtimeMs,
  );
  if (existsSync(bin) && existsSync(join(root, 'dist/index.js')) && statSync(bin).mtimeMs >= inputs) return;
  const built = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, encoding: 'utf8', stdio: 'pipe' });
  if (built.status !== 0) throw new Error(`npm run build failed before the CLI tests:\n${built.stdout}\n${built.stderr}`);
}
