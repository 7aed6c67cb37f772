/**
 * What a store URL names (a file path, a Redis URL, a Postgres URL; any other scheme refused naming
 * where it came from, never quoting it), where it comes from (`--store` before `PAYMENTS_STORE_URL`),
 * and the redaction of its password from an error: a Redis password as well as a Postgres one; a
 * file path, which holds no secret and names the file to fix, is left in the message.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/exit-codes.js';
import { storeTargetOf, storeUrlFrom, withoutStoreSecrets } from '../../src/cli/store-url.js';

const saved = process.env.PAYMENTS_STORE_URL;
afterEach(() => {
  if (saved === undefined) delete process.env.PAYMENTS_STORE_URL;
  else process.env.PAYMENTS_STORE_URL = saved;
});

describe('store URLs', () => {
  it('a path is a file; redis:// and rediss:// are Redis; postgres:// and postgresql:// are Postgres', () => {
    const target = (url: string) => storeTargetOf({ url, source: '--store' });
    expect(target('payroll.store')).toEqual({ kind: 'file', path: 'payroll.store' });
    expect(target('C:\\payroll\\run.store')).toEqual({ kind: 'file', path: 'C:\\payroll\\run.store' });
    for (const url of ['redis://127.0.0.1:6379/0', 'REDISS://:pw@cache.internal:6380']) expect(target(url)).toEqual({ kind: 'redis', url });
    for (const url of ['postgres://app@127.0.0.1/shop', 'postgresql://app:pw@db/shop'])
      expect(target(url)).toEqual({ kind: 'postgres', url });
  });

  it('another scheme, or an empty value, is a usage error naming its source and never quoting the URL', () => {
    const secret = 's3cret-Mx';
    const error = (() => {
      try {
        storeTargetOf({ url: `mysql://app:${secret}@db/shop`, source: 'PAYMENTS_STORE_URL' });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toBe(
      'PAYMENTS_STORE_URL must be a file path, or a redis://, rediss://, postgres:// or postgresql:// URL (it has mysql://).',
    );
    expect(() => storeTargetOf({ url: ' ', source: '--store' })).toThrow('--store must not be empty.');
  });

  it('--store wins over PAYMENTS_STORE_URL; an empty variable is no store', () => {
    process.env.PAYMENTS_STORE_URL = 'redis://127.0.0.1:1';
    expect(storeUrlFrom('local.store')).toEqual({ url: 'local.store', source: '--store' });
    expect(storeUrlFrom(undefined)).toEqual({ url: 'redis://127.0.0.1:1', source: 'PAYMENTS_STORE_URL' });
    process.env.PAYMENTS_STORE_URL = '';
    expect(storeUrlFrom(undefined)).toBeUndefined();
  });

  it("a Redis URL's password is redacted from an error; a file path is left as it is", () => {
    const url = 'rediss://default:r%2Fedis-pw@cache.internal:6380/0';
    const error = new Error('WRONGPASS for r/edis-pw', { cause: new Error(`connecting to ${url}`) });
    const redacted = withoutStoreSecrets(error, url) as Error;
    expect(`${redacted.message} ${String(redacted.cause)}`).not.toMatch(/r\/edis-pw|r%2Fedis-pw/);
    expect(redacted.message).toContain('[redacted]');
    const locked = new Error('fileStore: payroll.store is in use by process 12');
    expect(withoutStoreSecrets(locked, 'payroll.store')).toBe(locked);
  });
});
