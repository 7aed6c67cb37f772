/**
 * A store URL's secrets, taken out of an error before the CLI prints it: the URL, the password after
 * `user:` and a `password` query parameter, as written and decoded; an error that holds none of them
 * is printed as it is (its class, HTTP status and cause kept), and a file path holds none.
 */
import { describe, expect, it } from 'vitest';
import { withoutStoreSecrets } from '../../src/cli/store-url.js';
import { APIError } from '../../src/core/errors.js';

const messageOf = (error: unknown) => `${(error as Error).message}\n${(error as Error).stack}\n${String((error as Error).cause)}`;

describe('withoutStoreSecrets', () => {
  it('redacts the password after user: and in a password query parameter, as written and decoded', () => {
    const url = 'postgres://app:p%40ss-word1@127.0.0.1:5432/shop?password=q%26uery-secret&sslmode=disable';
    for (const echoed of ['p%40ss-word1', 'p@ss-word1', 'q%26uery-secret', 'q&uery-secret', url]) {
      const error = new Error(`database "${echoed}" does not exist`, { cause: new Error(`echo: ${echoed}`) });
      const printed = messageOf(withoutStoreSecrets(error, url));
      expect(printed).not.toContain(echoed);
      expect(printed).toContain('[redacted]');
    }
  });

  it('leaves an error that holds no secret as it is', () => {
    const error = new APIError({ status: 401, body: { message: 'Unauthorized' }, headers: new Headers() });
    expect(withoutStoreSecrets(error, 'postgres://app:secret-1@127.0.0.1/shop?password=other-2')).toBe(error);
    expect(withoutStoreSecrets(error, 'redis://:secret-1@127.0.0.1:6379/0')).toBe(error);
  });

  it('redacts a Redis password too, and never touches an error about a file path', () => {
    const url = 'rediss://default:r3dis-secret@127.0.0.1:6380';
    const printed = messageOf(withoutStoreSecrets(new Error('WRONGPASS r3dis-secret'), url));
    expect(printed).not.toContain('r3dis-secret');
    const fileError = new Error('EACCES: permission denied, open payroll.store');
    expect(withoutStoreSecrets(fileError, 'payroll.store')).toBe(fileError);
  });
});
