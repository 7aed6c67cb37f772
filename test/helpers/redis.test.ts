/** The Redis test helper: where it looks for redis-server, and what a machine without one does. */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findRedisServer, redisPlan } from './redis.js';

const dir = mkdtempSync(join(tmpdir(), 'redis-helper-'));
const bin = join(dir, 'bin');
const other = join(dir, 'other');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function executable(folder: string): string {
  const path = join(folder, 'redis-server');
  writeFileSync(path, '#!/bin/sh\n', { flag: 'w' });
  chmodSync(path, 0o755);
  return path;
}

describe('findRedisServer', () => {
  it('finds it on PATH, then in the fallback directories, and ignores a file that is not executable', () => {
    mkdirSync(bin, { recursive: true });
    mkdirSync(other, { recursive: true });
    expect(findRedisServer({ PATH: bin }, [])).toBeUndefined();
    writeFileSync(join(bin, 'redis-server'), 'not executable', { mode: 0o644 });
    expect(findRedisServer({ PATH: bin }, [])).toBeUndefined();
    const fallback = executable(other);
    expect(findRedisServer({ PATH: bin }, [other])).toBe(fallback);
    const onPath = executable(bin);
    expect(findRedisServer({ PATH: bin }, [other])).toBe(onPath);
    expect(findRedisServer({ PATH: '', REDIS_SERVER: fallback }, [])).toBe(fallback);
    expect(findRedisServer({ PATH: bin, REDIS_SERVER: join(dir, 'missing') }, [])).toBeUndefined();
  });
});

describe('redisPlan', () => {
  it('runs with a server; without one, skips with the reason and the fix, or fails under CI=true', () => {
    expect(redisPlan('/usr/bin/redis-server', { CI: 'true' })).toEqual({ run: true, binary: '/usr/bin/redis-server' });
    const skip = redisPlan(undefined, {});
    expect(skip).toMatchObject({ run: false, fail: false });
    expect('message' in skip && skip.message).toMatch(/^Redis tests skipped: no redis-server .*apt-get install -y redis-server/);
    expect(redisPlan(undefined, { CI: 'true' })).toMatchObject({ run: false, fail: true, message: expect.stringMatching(/CI=true/) });
  });
});
