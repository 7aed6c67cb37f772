/**
 * One script of the SDK's source and a small program, bundled by esbuild the way a Worker or Deno
 * app ships it, for tests that run it under another runtime's own binary.
 */
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

export const root = fileURLToPath(new URL('../../', import.meta.url));

/** Bundles `program` (TypeScript importing `payments-sdk…` by name) into one ESM script. */
export async function bundle(program: string, platform: 'browser' | 'node' = 'browser'): Promise<string> {
  const result = await esbuild.build({
    stdin: { contents: program, resolveDir: root, loader: 'ts', sourcefile: 'program.ts' },
    bundle: true,
    format: 'esm',
    platform,
    conditions: platform === 'browser' ? ['workerd', 'worker', 'browser'] : [],
    target: 'es2022',
    // The package names resolve to src/, as in every test.
    alias: {
      'payments-sdk/webhooks': './src/webhooks/index.ts',
      'payments-sdk/testing': './src/testing/index.ts',
      'payments-sdk/stores': './src/stores/index.ts',
      'payments-sdk': './src/index.ts',
    },
    external: ['msw', 'msw/*'],
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}
