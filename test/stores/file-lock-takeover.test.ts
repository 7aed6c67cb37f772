/**
 * A stale lock of a fileStore taken over by several processes at once: exactly one of them may hold
 * the file. Two holders each decide claims on their own copy of its records, so both claim the same
 * key (a webhook effect runs twice) and both append to the file.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleScript } from '../helpers/bundle-script.js';

/** The id of a process that ran and is gone. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/** Starts a child; resolves to its one line of output, and the function that lets it close its store and exit. */
function start(file: string, env: Record<string, string>): Promise<{ state: string; finish: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
    const exited = new Promise<void>((done) => child.on('exit', () => done()));
    const finish = () => {
      child.stdin.end();
      return exited;
    };
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve({ state: out.trim(), finish });
    });
    child.on('error', reject);
    child.on('exit', () => resolve({ state: out.trim(), finish }));
  });
}

describe('fileStore lock takeover', () => {
  let child: Awaited<ReturnType<typeof bundleScript>>;
  beforeAll(async () => {
    child = await bundleScript('test/stores/file-lock-child.ts');
  });
  afterAll(() => child?.cleanup());

  it('lets one process only take over a stale lock when several try at once', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-lock-'));
    const rounds: string[][] = [];
    for (let round = 0; round < 10; round++) {
      const path = join(dir, `r${round}.store`);
      writeFileSync(`${path}.lock`, `${deadPid()}\n`);
      const env = { STORE_FILE: path, START_AT: String(Date.now() + 1000) };
      // Every child has claimed or been refused before any of them gives its lock back.
      const children = await Promise.all([start(child.file, env), start(child.file, env), start(child.file, env), start(child.file, env)]);
      await Promise.all(children.map((c) => c.finish()));
      rounds.push(children.map((c) => c.state));
    }
    for (const states of rounds) expect(states.filter((state) => state === 'claimed')).toHaveLength(1);
  });
});
