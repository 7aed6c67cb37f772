/**
 * `fileStore(path)`: the store contract on a file, and what a file adds: records read back by a
 * new store (leases not), a torn last line dropped, a damaged or foreign file refused, the file
 * rewritten whole when most lines are superseded, its lock (a second store refused, naming the lock
 * file and its process; a killed process's lock taken over), and a real process killed with
 * SIGKILL in the middle of its writes losing nothing it was told was written.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PaymentsError } from 'payments-sdk';
import { fileStore, StoreTimeoutError } from 'payments-sdk/stores';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleScript } from '../helpers/bundle-script.js';
import { caught } from '../helpers/caught.js';
import { describeStoreContract } from '../helpers/store-contract.js';

let dir = '';
let files = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sdk-file-store-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});
const newPath = () => join(dir, `store-${++files}.jsonl`);
const LONG = 60_000;

describeStoreContract(
  'fileStore',
  async () => {
    const path = newPath();
    const store = fileStore(path);
    return { store, cleanup: () => store.close?.() ?? Promise.resolve() };
  },
  { notShared: 'fileStore is used by one process at a time (an exclusive lock file), never by two instances' },
);

describe('fileStore', () => {
  it('is read back by a new store: claims, data, notes, results and settled keys; leases are not (their process is gone)', async () => {
    const path = newPath();
    const first = fileStore(path);
    await first.claim([
      { key: 'bulk:b:settled', owner: 'A', leaseMs: LONG, data: { row: 1, weird: '\u0000\uD800' } },
      { key: 'bulk:b:released', owner: 'A', leaseMs: LONG },
      { key: 'bulk:b:held', owner: 'A', leaseMs: LONG },
    ]);
    expect(await first.settle('bulk:b:settled', 'A', { payout: 'po_1' })).toBe(true);
    expect(await first.release('bulk:b:released', 'A', { error: 'timeout' })).toBe(true);
    await first.close?.();
    expect(existsSync(`${path}.lock`)).toBe(false);

    const second = fileStore(path);
    const [settled, released, held] = await second.read(['bulk:b:settled', 'bulk:b:released', 'bulk:b:held']);
    expect(settled).toMatchObject({ settled: true, claims: 1, data: { row: 1, weird: '\u0000\uD800' }, result: { payout: 'po_1' } });
    expect(released).toMatchObject({ settled: false, claims: 1, note: { error: 'timeout' } });
    expect(held).toMatchObject({ settled: false, claims: 1 });
    expect(held?.owner).toBeUndefined();
    expect((await second.claim([{ key: 'bulk:b:held', owner: 'B', leaseMs: LONG }]))[0]).toMatchObject({
      state: 'claimed',
      record: { claims: 2 },
    });
    expect((await second.claim([{ key: 'bulk:b:settled', owner: 'B', leaseMs: LONG }]))[0]?.state).toBe('settled');
    await second.close?.();
  });

  it('writes each change to the file before the call resolves', async () => {
    const path = newPath();
    const store = fileStore(path);
    await store.claim([{ key: 'webhook:evt_1', owner: 'A', leaseMs: LONG }]);
    const afterClaim = (await readFile(path, 'utf8')).trim().split('\n');
    expect(afterClaim).toHaveLength(2);
    expect(JSON.parse(afterClaim[1] as string)).toMatchObject({ k: 'webhook:evt_1', c: 1 });
    await store.settle('webhook:evt_1', 'A', { ok: true });
    expect(JSON.parse((await readFile(path, 'utf8')).trim().split('\n').at(-1) as string)).toMatchObject({ s: true, r: { ok: true } });
    await store.close?.();
  });

  it('drops a torn last line (a write cut by SIGKILL) and appends after the last complete one', async () => {
    const path = newPath();
    const first = fileStore(path);
    await first.claim([{ key: 'webhook:evt_1', owner: 'A', leaseMs: LONG }]);
    await first.close?.();
    await appendFile(path, '{"k":"webhook:evt_1","c":1,"f":1,"w":2,"s":tr');
    const second = fileStore(path);
    const [record] = await second.read(['webhook:evt_1']);
    expect(record).toMatchObject({ settled: false, claims: 1 });
    expect((await second.claim([{ key: 'webhook:evt_1', owner: 'B', leaseMs: LONG }]))[0]?.state).toBe('claimed');
    expect(await second.settle('webhook:evt_1', 'B')).toBe(true);
    await second.close?.();
    const text = await readFile(path, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    for (const line of text.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    const third = fileStore(path);
    expect((await third.read(['webhook:evt_1']))[0]).toMatchObject({ settled: true, claims: 2 });
    await third.close?.();
  });

  it('refuses a damaged file (a bad line that is not the last) and a file it did not write, rather than guessing', async () => {
    const damaged = newPath();
    await writeFile(damaged, '{"payments-sdk":"store","version":1}\nnot json\n{"k":"a","c":1,"f":1,"w":1}\n');
    const error = await caught(fileStore(damaged).read(['a']));
    expect(error).toBeInstanceOf(PaymentsError);
    expect(error.message).toBe(`fileStore: line 2 of ${damaged} is not JSON: the file is damaged.`);
    // Refused, its lock is given back.
    expect(existsSync(`${damaged}.lock`)).toBe(false);

    const foreign = newPath();
    await writeFile(foreign, '{"op":"claim","batch":"b","key":"k"}\n');
    expect((await caught(fileStore(foreign).read(['a']))).message).toMatch(/is not a store file/);
    expect(await readFile(foreign, 'utf8')).toBe('{"op":"claim","batch":"b","key":"k"}\n');
    // Nor is a file without a final newline taken for one with a torn last line.
    const text = newPath();
    await writeFile(text, 'notes\nmore notes');
    expect((await caught(fileStore(text).read(['a']))).message).toMatch(/is not a store file/);
    expect(await readFile(text, 'utf8')).toBe('notes\nmore notes');
  });

  it('rewrites the file with the live records once most lines are superseded, and reads it back the same', async () => {
    const path = newPath();
    const store = fileStore(path);
    await store.claim([{ key: 'bulk:b:kept', owner: 'A', leaseMs: LONG, data: { kept: true } }]);
    expect(await store.settle('bulk:b:kept', 'A', { kept: true })).toBe(true);
    for (let i = 0; i < 700; i++) {
      await store.claim([{ key: 'bulk:b:hot', owner: 'A', leaseMs: LONG }]);
      await store.release('bulk:b:hot', 'A', { i });
    }
    const lines = (await readFile(path, 'utf8')).trim().split('\n');
    expect(lines.length).toBeLessThan(1_000);
    expect(lines[0]).toBe('{"payments-sdk":"store","version":1}');
    expect(existsSync(`${path}.compacting`)).toBe(false);
    await store.close?.();
    const again = fileStore(path);
    const [kept, hot] = await again.read(['bulk:b:kept', 'bulk:b:hot']);
    expect(kept).toMatchObject({ settled: true, result: { kept: true }, data: { kept: true } });
    expect(hot).toMatchObject({ claims: 700, note: { i: 699 }, settled: false });
    await again.close?.();
  });

  it('forgets records ttlMs after their last write, also across a reopen', async () => {
    const path = newPath();
    const store = fileStore(path, { ttlMs: 100 });
    await store.claim([{ key: 'webhook:old', owner: 'A', leaseMs: 10 }]);
    expect(await store.settle('webhook:old', 'A')).toBe(true);
    await store.close?.();
    await new Promise((resolve) => setTimeout(resolve, 150));
    const again = fileStore(path, { ttlMs: 100 });
    expect(await again.read(['webhook:old'])).toEqual([undefined]);
    expect((await again.claim([{ key: 'webhook:old', owner: 'B', leaseMs: 10 }]))[0]?.record.claims).toBe(1);
    await again.close?.();
  });

  it('is locked by the process using it: a second store is refused, naming the lock file and the process; a killed process’s lock is taken over', async () => {
    const path = newPath();
    const child = await bundleScript('test/stores/file-child.ts');
    const holder = spawn(process.execPath, [child.file], {
      env: { ...process.env, STORE_FILE: path, STORE_MODE: 'hold' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [line] = (await once(holder.stdout, 'data')) as [Buffer];
      expect(String(line).trim()).toBe(`locked ${holder.pid}`);
      const refused = await caught(fileStore(path).claim([{ key: 'webhook:x', owner: 'A', leaseMs: LONG }]));
      expect(refused).toBeInstanceOf(PaymentsError);
      expect(refused.message).toBe(
        `fileStore: ${path} is in use by process ${holder.pid}, which holds its lock file ${path}.lock: one process at a time per store file. ` +
          `Close the other store first; if no such process runs, delete ${path}.lock.`,
      );
      holder.kill('SIGKILL');
      await once(holder, 'exit');
      const store = fileStore(path);
      expect((await store.claim([{ key: 'webhook:x', owner: 'A', leaseMs: LONG }]))[0]?.state).toBe('claimed');
      expect((await readFile(`${path}.lock`, 'utf8')).trim()).toBe(String(process.pid));
      // A second store in this same process is refused too, while the first is open.
      expect((await caught(fileStore(path).read(['webhook:x']))).message).toContain(`process ${process.pid} (this one)`);
      await store.close?.();
      expect(existsSync(`${path}.lock`)).toBe(false);
    } finally {
      holder.kill('SIGKILL');
      await child.cleanup();
    }
  });

  it('loses nothing it acknowledged when its process is killed with SIGKILL in the middle of its writes', async () => {
    const path = newPath();
    const child = await bundleScript('test/stores/file-child.ts');
    try {
      for (let round = 0; round < 3; round++) {
        const worker = spawn(process.execPath, [child.file], {
          env: { ...process.env, STORE_FILE: path, STORE_MODE: 'work' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stderr = '';
        worker.stderr.on('data', (chunk) => {
          stderr += String(chunk);
        });
        const claimed: string[] = [];
        const settled: string[] = [];
        const killAfter = 150 + round * 97;
        const lines = createInterface({ input: worker.stdout });
        lines.on('line', (line) => {
          const [kind, key] = line.split(' ') as [string, string];
          (kind === 'C' ? claimed : settled).push(key);
          if (settled.length === killAfter) worker.kill('SIGKILL');
        });
        const [code, signal] = (await once(worker, 'exit')) as [number | null, string | null];
        expect({ code, signal, stderr }).toEqual({ code: null, signal: 'SIGKILL', stderr: '' });
        expect(settled.length).toBeGreaterThanOrEqual(killAfter);

        const store = fileStore(path);
        const claimedRecords = await store.read(claimed);
        for (const [i, record] of claimedRecords.entries()) expect(record, claimed[i]).toMatchObject({ key: claimed[i] });
        const settledRecords = await store.read(settled);
        for (const [i, record] of settledRecords.entries()) {
          expect(record, settled[i]).toMatchObject({ settled: true, result: expect.any(Object) });
        }
        for (const line of (await readFile(path, 'utf8')).split('\n').slice(0, -1)) expect(() => JSON.parse(line)).not.toThrow();
        await store.close?.();
      }
      // The runs rewrote the file along the way: it holds fewer lines than the hot keys' claims and
      // releases alone wrote.
      const store = fileStore(path);
      const hot = await store.read(Array.from({ length: 8 }, (_, i) => `bulk:hot:${i}`));
      await store.close?.();
      const hotLines = 2 * hot.reduce((sum, record) => sum + (record?.claims ?? 0), 0);
      expect((await readFile(path, 'utf8')).split('\n').length).toBeLessThan(hotLines);
    } finally {
      await child.cleanup();
    }
  }, 60_000);

  it('says what to use where there is no file system; names the file it cannot open; refuses an empty path and bad options', async () => {
    const original = process.getBuiltinModule;
    Object.defineProperty(process, 'getBuiltinModule', { value: undefined, configurable: true, writable: true });
    try {
      const error = await caught(fileStore(newPath()).read(['a']));
      expect(error.message).toBe(
        'fileStore needs a file system (Node.js 22.3+, Bun or Deno). On an edge runtime, use d1Store, redisStore or postgresStore.',
      );
    } finally {
      Object.defineProperty(process, 'getBuiltinModule', { value: original, configurable: true, writable: true });
    }
    const missingDir = join(dir, 'no-such-dir', 'x.store');
    const unopened = await caught(fileStore(missingDir).read([]));
    expect(unopened).toBeInstanceOf(PaymentsError);
    expect(unopened.message).toMatch(/^fileStore: cannot open .*no-such-dir.*x\.store \(ENOENT\): /);
    expect(unopened.cause).toMatchObject({ code: 'ENOENT' });
    expect(() => fileStore('')).toThrow('fileStore(path): path must be a non-empty string.');
    expect(() => fileStore(newPath(), { timeoutMs: 0 })).toThrow('fileStore: timeoutMs must be a positive integer, got 0.');
    expect(fileStore(newPath()).kind).toBe('file');
  });

  it('rejects with StoreTimeoutError when the file does not open in time, and then never runs the call', async () => {
    const path = newPath();
    // A lock file still empty, as a process creating it leaves it: the store waits up to a second for its id.
    await writeFile(`${path}.lock`, '');
    const store = fileStore(path, { timeoutMs: 200 });
    const error = await caught(store.claim([{ key: 'webhook:early', owner: 'A', leaseMs: LONG }]));
    expect(error).toBeInstanceOf(StoreTimeoutError);
    expect(error.message).toBe(`fileStore: ${path} did not open within 200 ms; nothing was written, and the call may be repeated.`);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    // Opened meanwhile; the call that timed out claimed nothing, and the store still answers.
    expect(await store.read(['webhook:early'])).toEqual([undefined]);
    expect((await store.claim([{ key: 'webhook:early', owner: 'B', leaseMs: LONG }]))[0]?.record.claims).toBe(1);
    await store.close?.();
  });

  it('rejects with StoreTimeoutError when the disk does not answer in time, and keeps refusing until opened again', async () => {
    const path = newPath();
    const store = fileStore(path, { timeoutMs: 50 });
    // Opened first (a cold first open may take longer than 50 ms: such a call times out harmlessly).
    const deadline = Date.now() + 5_000;
    while (
      !(await store.read([]).then(
        () => true,
        () => false,
      ))
    ) {
      if (Date.now() > deadline) throw new Error('the store did not open within 5 s');
    }
    // Hold the store's writes: the lock's own process answers, but the disk does not.
    const { promises } = await import('node:fs');
    const open = promises.open;
    let release = () => {};
    const stuck = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The next write goes through the handle opened already: its appendFile is slowed through the prototype.
    const handle = await open(path, 'r');
    const proto = Object.getPrototypeOf(handle) as { appendFile: (...args: unknown[]) => Promise<void> };
    await handle.close();
    const appendFileOriginal = proto.appendFile;
    proto.appendFile = async function (this: unknown, ...args: unknown[]) {
      await stuck;
      return appendFileOriginal.apply(this, args);
    };
    try {
      const slow = caught(store.claim([{ key: 'webhook:slow', owner: 'A', leaseMs: LONG }]));
      // Queued behind the stuck write: once the store stops, it is never written.
      const queued = caught(store.claim([{ key: 'webhook:queued', owner: 'A', leaseMs: LONG }]));
      const error = await slow;
      expect(await queued).toBe(error);
      expect(error).toBeInstanceOf(StoreTimeoutError);
      expect(error.message).toBe(
        `fileStore: ${path} did not answer within 50 ms (the disk did not confirm a write); the store refuses every call until it is opened again.`,
      );
      expect(await caught(store.read(['webhook:slow']))).toBe(error);
    } finally {
      proto.appendFile = appendFileOriginal;
      release();
    }
    await store.close?.();
    const again = fileStore(path);
    const [slowRecord, queuedRecord] = await again.read(['webhook:slow', 'webhook:queued']);
    // The write the disk finished late is there (it may be: the caller was told it may be);
    // the one queued after it was never written.
    expect(slowRecord).toMatchObject({ claims: 1 });
    expect(queuedRecord).toBeUndefined();
    await again.close?.();
  });
});
