/**
 * `payments-sdk/stores` loads on every runtime: bundled as a Worker bundles it, it imports no
 * `node:` module, and it runs in a plain V8 context without Node's globals.
 */
import { runInNewContext } from 'node:vm';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { bundle } from '../helpers/bundle.js';

describe('payments-sdk/stores', () => {
  it('bundles for a Worker without any node: import, and its stores work without Node globals', async () => {
    const program = `
      import { memoryStore } from 'payments-sdk/stores';
      const store = memoryStore();
      globalThis.result = store
        .claim([{ key: 'webhook:evt_1', owner: 'A', leaseMs: 1000 }])
        .then(async ([answer]) => [answer.state, await store.settle('webhook:evt_1', 'A'), (await store.claim([{ key: 'webhook:evt_1', owner: 'B', leaseMs: 1000 }]))[0].state]);
    `;
    const code = await bundle(program, 'browser');
    expect(code).not.toMatch(/\bfrom\s*["']node:|import\(\s*["']node:|require\(\s*["']node:/);
    // An ES module bundle: the context runs it as a script once its (absent) imports are gone.
    const script = (await esbuild.transform(code, { format: 'iife' })).code;
    const context: Record<string, unknown> = { performance, setTimeout, clearTimeout };
    runInNewContext(script, context);
    expect(await (context.result as Promise<unknown>)).toEqual(['claimed', true, 'settled']);
  });
});
