/**
 * What a test file does about a server it needs (redis-server, PostgreSQL): run against it when it
 * is found; without one, fail under `CI=true` (CI must test it, never skip it) and elsewhere skip,
 * with one line saying why and how to get it.
 */
import { describe, it } from 'vitest';

/** Without a server: fail (CI) or skip, and the message that says so. */
export interface MissingServer {
  run: false;
  fail: boolean;
  message: string;
}

/** The plan without a server: `tests` names them ("Redis"), `where` what was looked for, `hint` how to install one. */
export function withoutServer(env: NodeJS.ProcessEnv, tests: string, where: string, hint: string): MissingServer {
  if (env.CI === 'true' || env.CI === '1') {
    return { run: false, fail: true, message: `CI=true and ${where}: the ${tests} tests must run in CI. To fix it, ${hint}.` };
  }
  return { run: false, fail: false, message: `${tests} tests skipped: ${where}. To run them, ${hint}.` };
}

/** `describe` when the server is there; without it, one failing test named `needs` (CI) or a skipped block. */
export function describeWithServer(plan: { run: true } | MissingServer, needs: string, name: string, body: () => void): void {
  if (plan.run) {
    describe(name, body);
    return;
  }
  if (plan.fail) {
    describe(name, () => {
      it(needs, () => {
        throw new Error(plan.message);
      });
    });
    return;
  }
  describe.skip(name, body);
}

/** The body of a vitest globalSetup: prints the skip line once, or throws under CI=true. */
export function reportMissingServer(plan: { run: true } | MissingServer): void {
  if (plan.run) return;
  if (plan.fail) throw new Error(plan.message);
  process.stderr.write(`${plan.message}\n`);
}
