/**
 * The database URL's secrets, taken out of an error before the CLI prints it: the URL, the password
 * after `user:` and a `password` query parameter, as written and decoded; an error that holds none
 * of them is printed as it is (its class, HTTP status and cause kept).
 */
import { describe, expect, it } from 'vitest';
import { withoutDatabaseSecrets } from '../../src/cli/database-url.js';
import { APIError } from '../../src/core/errors.js';

const messageOf = (error: unknown) => `${(error as Error).message}\n${(error as Error).stack}\n${String((error as Error).cause)}`;

describe('withoutDatabaseSecrets', () => {
  it('redacts the password after user: and in a password query parameter, as written and decoded', () => {
    const url = 'postgres://app:p%40ss-word1@127.0.0.1:5432/shop?password=q%26uery-secret&sslmode=disable';
    for (const echoed of ['p%40ss-word1', 'p@ss-word1', 'q%26uery-secret', 'q&uery-secret', url]) {
      const error = new Error(`database "${echoed}" does not exist`, { cause: new Error(`echo: ${echoed}`) });
      const printed = messageOf(withoutDatabaseSecrets(error, url));
      expect(printed).not.toContain(echoed);
      expect(printed).toContain('[redacted]');
    }
  });

  it('leaves an error that holds no secret as it is', () => {
    const error = new APIError({ status: 401, body: { message: 'Unauthorized' }, headers: new Headers() });
    expect(withoutDatabaseSecrets(error, 'postgres://app:secret-1@127.0.0.1/shop?password=other-2')).toBe(error);
  });
});
