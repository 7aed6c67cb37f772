/**
 * The framework webhook recipes (examples/frameworks/*), each a real app tested against the real
 * framework on 127.0.0.1:
 *
 *   npm run test:frameworks     (builds with tsup first, then runs this file on the pinned toolchain Node)
 *
 * 1. installs the apps' own dependencies (examples/frameworks/package-lock.json; `npm ci` on CI or
 *    on a first run, else `npm install`, a no-op when nothing changed) from the npm registry;
 * 2. installs the BUILT payments-sdk there from `npm pack`, as a merchant's install would;
 * 3. builds the Next.js apps (`next build`, telemetry off), which typechecks them;
 * 4. typechecks every other app with its own tsconfig (tsc, strict, skipLibCheck off but for Koa);
 * 5. runs examples/frameworks/vitest.config.ts: one test file per app, which starts it and sends
 *    signed deliveries made by payments-sdk/testing.
 * Prints the time of each step.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { installPacked, root } from './install-packed.ts';

const frameworks = join(root, 'examples', 'frameworks');
const apps = ['express4', 'express5', 'fastify', 'koa', 'hono', 'nest', 'next-app-router', 'next-pages-router'];
const nextApps = apps.filter((app) => app.startsWith('next-'));
// No telemetry, no update check, nothing sent anywhere but 127.0.0.1.
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NO_UPDATE_NOTIFIER: '1' };

function step(name: string, run: () => void): void {
  const started = performance.now();
  console.log(`\n▶ ${name}`);
  run();
  console.log(`✓ ${name} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}

function run(command: string, args: string[], cwd = frameworks): void {
  execFileSync(command, args, { cwd, env, stdio: 'inherit' });
}

const started = performance.now();
const fresh = process.env.CI === 'true' || !existsSync(join(frameworks, 'node_modules'));
step(`${fresh ? 'npm ci' : 'npm install'} in examples/frameworks`, () => run('npm', [fresh ? 'ci' : 'install', '--no-audit', '--no-fund']));
step('payments-sdk from npm pack into examples/frameworks/node_modules', () => {
  installPacked(frameworks);
});
for (const app of nextApps) {
  step(`next build (${app})`, () =>
    run(process.execPath, [join(frameworks, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], join(frameworks, app)),
  );
}
// next build typechecks the Next.js apps with their own tsconfig; tsc does the others (and compiles
// the NestJS app into nest/dist: its decorators need the compiler, not Node's type stripping).
step('tsc --strict on every other app', () => {
  for (const app of apps.filter((name) => !nextApps.includes(name)))
    run(process.execPath, [join(frameworks, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app]);
});
step('the recipe tests', () =>
  run(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'vitest.config.ts']),
);
console.log(`\ntest:frameworks passed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
