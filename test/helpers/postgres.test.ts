import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePostgres, type PostgresServer, postgresPlan, startPostgresServer } from './postgres.js';

it('postgresPlan fails under CI=true and skips elsewhere when no server is found', () => {
  expect(postgresPlan(undefined, { CI: 'true' })).toMatchObject({ run: false, fail: true });
  expect(postgresPlan(undefined, {})).toMatchObject({ run: false, fail: false });
  expect(postgresPlan('/usr/lib/postgresql/15/bin', {})).toEqual({ run: true, bindir: '/usr/lib/postgresql/15/bin' });
});

describePostgres('startPostgresServer', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 30_000);
  afterAll(() => server?.stop());

  it('answers on 127.0.0.1, stops answering while paused, and answers again once resumed', async () => {
    const pool = new pg.Pool({ connectionString: server.url, max: 1 });
    // pool.end() resolves before its sockets close: the server stopping right after may end the
    // backend first (57P01), which the pool emits as an 'error' that nothing here must answer.
    pool.on('error', () => {});
    expect((await pool.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    server.pause();
    const query = pool.query({ text: 'select 2 as two' });
    const outcome = await Promise.race([query.then(() => 'answered'), new Promise((r) => setTimeout(() => r('silent'), 300))]);
    expect(outcome).toBe('silent');
    server.resume();
    expect((await query).rows).toEqual([{ two: 2 }]);
    await pool.end();
  });
});
