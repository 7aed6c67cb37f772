/**
 * `fileJournal(path)`: JSON lines read back after a crash (a torn last line dropped), the claim on
 * disk before the send, and its lock: a second process is refused while the first runs, and a lock
 * left by a killed process is taken over.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BulkClaimRequest, fileJournal, PaymentsClient, PaymentsError } from 'payments-sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { payoutMock, rows } from '../helpers/bulk.js';
import { caught } from '../helpers/caught.js';
import { bundleChild } from './processes.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sdk-file-journal-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const request = (over: Partial<BulkClaimRequest> = {}): BulkClaimRequest => ({
  batchId: 'b',
  rowKey: 'k',
  idempotencyKey: 'ik',
  index: 0,
  owner: 'A',
  now: 1000,
  leaseMs: 30_000,
  sentBefore: 0,
  ...over,
});

describe('fileJournal', () => {
  it('writes the claim to the file before the send, and a new journal on the file reads it back', async () => {
    const path = join(dir, 'claim.journal');
    const mock = payoutMock();
    let onDisk = '';
    const fetchSpy = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      onDisk = await readFile(path, 'utf8');
      return mock.fetch(input, init);
    });
    const spied = new PaymentsClient({
      apiKey: mock.liveApiKey as string,
      baseUrl: mock.baseUrl,
      fetch: fetchSpy,
    });
    await spied.payouts.createMany(rows(1), { batchId: 'disk', journal: fileJournal(path) }).summary();
    expect(fetchSpy).toHaveBeenCalledTimes(1);
    expect(JSON.parse(onDisk.trim())).toMatchObject({
      op: 'claim',
      batch: 'disk',
      key: '0',
      index: 0,
      attempts: 1,
      ik: expect.stringMatching(/^bulk1_/),
    });
    const again = fileJournal(path);
    expect((await again.claim(request({ batchId: 'disk', rowKey: '0' }))).state).toBe('done');
    await again.close?.();
  });

  it('drops a torn last line (a write cut by SIGKILL) and appends after the last complete one', async () => {
    const path = join(dir, 'torn.journal');
    const first = fileJournal(path);
    await first.claim(request());
    await first.close?.();
    await appendFile(path, '{"op":"settle","batch":"b","key":"k","outc');
    const second = fileJournal(path);
    // The settle never completed: the row is still sent without an outcome, claimable (again).
    const claim = await second.claim(request({ owner: 'B', now: 2000 }));
    expect(claim).toEqual({ state: 'claimed', record: { idempotencyKey: 'ik', index: 0, sentAt: 1000, attempts: 2 } });
    await second.settle('b', 'k', 'B', { status: 'created', at: 3000 });
    await second.close?.();
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -1).map((l) => JSON.parse(l).op)).toEqual(['claim', 'claim', 'settle']);
    const third = fileJournal(path);
    expect((await third.claim(request({ owner: 'C' }))).state).toBe('done');
    await third.close?.();
  });

  it('is locked by the process using it: a second process is refused, naming it; once it is killed, the stale lock is taken over', async () => {
    const path = join(dir, 'locked.journal');
    const holder = await bundleChild('lock-holder.ts');
    const child = spawn(process.execPath, [holder.file], {
      env: { ...process.env, BULK_JOURNAL: path },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [line] = (await once(child.stdout, 'data')) as [Buffer];
      expect(String(line).trim()).toBe(`locked ${child.pid}`);
      expect((await readFile(`${path}.lock`, 'utf8')).trim()).toBe(String(child.pid));

      const refused = await caught(() => fileJournal(path).claim(request()));
      expect(refused).toBeInstanceOf(PaymentsError);
      expect(refused.message).toBe(
        `fileJournal: ${path} is in use by process ${child.pid}: one run at a time per journal file. Wait for it to finish; if no such process runs, delete ${path}.lock.`,
      );
      // Refused before writing anything: the journal file holds no line.
      expect(await readFile(path, 'utf8')).toBe('');

      child.kill('SIGKILL');
      await once(child, 'exit');
      const journal = fileJournal(path);
      expect((await journal.claim(request())).state).toBe('claimed');
      expect((await readFile(`${path}.lock`, 'utf8')).trim()).toBe(String(process.pid));
      // A second journal in this same process is refused too, while the first is open.
      expect((await caught(() => fileJournal(path).read('b', ['k']))).message).toContain(`process ${process.pid} (this one)`);
      await journal.close?.();
      expect(existsSync(`${path}.lock`)).toBe(false);
      const reopened = fileJournal(path);
      expect((await reopened.read('b', ['k']))[0]).toMatchObject({ idempotencyKey: 'ik', attempts: 1 });
      await reopened.close?.();
    } finally {
      child.kill('SIGKILL');
      await holder.cleanup();
    }
  });

  it('refuses a damaged file (a bad line that is not the last) rather than guessing', async () => {
    const path = join(dir, 'damaged.journal');
    await writeFile(path, 'not json\n{"op":"claim","batch":"b","key":"k","ik":"ik","index":0,"sentAt":1,"attempts":1}\n');
    const error = await caught(() => fileJournal(path).claim(request()));
    expect(error).toBeInstanceOf(PaymentsError);
    expect((error as Error).message).toContain('line 1');
  });

  it('says what to use where there is no file system, and refuses an empty path', async () => {
    const original = process.getBuiltinModule;
    Object.defineProperty(process, 'getBuiltinModule', { value: undefined, configurable: true, writable: true });
    try {
      const error = await caught(() => fileJournal(join(dir, 'edge.journal')).claim(request()));
      expect((error as Error).message).toContain('redisJournal');
    } finally {
      Object.defineProperty(process, 'getBuiltinModule', { value: original, configurable: true, writable: true });
    }
    expect(() => fileJournal('')).toThrow(PaymentsError);
  });
});
