/**
 * `payments-sdk/stores` exports the stores, and loads on every runtime: bundled as a Worker bundles
 * it, it imports no `node:` module, and it runs in a plain V8 context without Node's globals.
 */
import { runInNewContext } from 'node:vm';
import * as esbuild from 'esbuild';
import * as main from 'payments-sdk';
import * as stores from 'payments-sdk/stores';
import * as webhooks from 'payments-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { bundle } from '../helpers/bundle.js';

describe('payments-sdk/stores', () => {
  it('exports the stores and their errors, which no other entry exports', () => {
    expect(Object.keys(stores)).toEqual(expect.arrayContaining(['fileStore', 'memoryStore', 'StoreFullError', 'StoreTimeoutError']));
    for (const entry of [main, webhooks]) expect(Object.keys(entry).filter((name) => name in stores)).toEqual([]);
  });

  it('bundles for a Worker without any node: import; there memoryStore works and fileStore says it needs a file system', async () => {
    const program = `
      import * as all from 'payments-sdk/stores';
      const store = all.memoryStore();
      globalThis.result = (async () => {
        const [first] = await store.claim([{ key: 'webhook:evt_1', owner: 'A', leaseMs: 1000 }]);
        const settled = await store.settle('webhook:evt_1', 'A');
        const [again] = await store.claim([{ key: 'webhook:evt_1', owner: 'B', leaseMs: 1000 }]);
        const file = await all.fileStore('x.store').read([]).then(() => 'opened', (error) => error.message);
        return [Object.keys(all).length > 0, first.state, settled, again.state, file];
      })();
    `;
    const code = await bundle(program, 'browser');
    expect(code).not.toMatch(/\bfrom\s*["']node:|import\(\s*["']node:|require\(\s*["']node:/);
    // An ES module bundle: the context runs it as a script once its (absent) imports are gone.
    const script = (await esbuild.transform(code, { format: 'iife' })).code;
    const context: Record<string, unknown> = { performance, setTimeout, clearTimeout };
    runInNewContext(script, context);
    expect(await (context.result as Promise<unknown>)).toEqual([
      true,
      'claimed',
      true,
      'settled',
      'fileStore needs a file system (Node.js 22.3+, Bun or Deno). On an edge runtime, use d1Store, redisStore or postgresStore.',
    ]);
  });
});
