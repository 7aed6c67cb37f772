/**
 * zod is a dependency the built package imports (`zod/mini`), never a copy built into dist/: a
 * merchant who uses zod has one copy of it, and a zod fix reaches them without a rebuild of the SDK.
 * These tests run on the BUILT package (test/cli/global-setup.ts builds it when stale) and show that
 * the schemas of `payments-sdk/schemas` compose with the merchant's zod, classic and mini, through
 * ESM and CommonJS.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as classic from 'zod';
import * as mini from 'zod/mini';
import { payment } from '../helpers/fixtures.js';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
type Schemas = typeof import('payments-sdk/schemas');
const esm = (await import(pathToFileURL(join(dist, 'schemas.js')).href)) as Schemas;
const require = createRequire(import.meta.url);
const cjs = require(join(dist, 'schemas.cjs')) as Schemas;

describe('the built package imports zod, and carries no copy of it', () => {
  const files = readdirSync(dist).filter((file) => /\.(c?js)$/.test(file));
  const text = (file: string) => readFileSync(join(dist, file), 'utf8');

  it("the entries that validate import zod/mini from the merchant's node_modules", () => {
    const importsZod = /(?:from\s*|require\s*\(\s*)["']zod\/mini["']/;
    // Each entry either imports zod itself or through a chunk it imports: some built file of each
    // format does, and the command line (one file) does.
    expect(files.filter((file) => file.endsWith('.js') && importsZod.test(text(file))).length).toBeGreaterThan(0);
    expect(files.filter((file) => file.endsWith('.cjs') && importsZod.test(text(file))).length).toBeGreaterThan(0);
    expect(text('cli.js')).toMatch(importsZod);
  });

  it("no built file holds zod's own code", () => {
    expect(files.length).toBeGreaterThan(4);
    // tsup marks a file it builds in with a `// node_modules/zod/...` line; zod's core sets up its
    // configuration on globalThis under this key.
    const copies = files.filter((file) => /^\/\/ node_modules\/zod\//m.test(text(file)) || text(file).includes('__zod_globalConfig'));
    expect(copies).toEqual([]);
  });

  for (const [format, schemas] of [
    ['ESM', esm],
    ['CommonJS', cjs],
  ] as const) {
    describe(format, () => {
      it("composes with the merchant's classic zod", () => {
        const order = classic.object({ reference: classic.string(), payment: schemas.PaymentSchema });
        const good = order.safeParse({ reference: 'A-1', payment: payment() });
        expect(good.success).toBe(true);
        expect(good.data?.payment.uuid).toBe(payment().uuid);

        const bad = order.safeParse({ reference: 'A-1', payment: { ...payment(), gross_amount: 'lots' } });
        expect(bad.success).toBe(false);
        expect(bad.error?.issues.map((issue) => issue.path)).toContainEqual(['payment', 'gross_amount']);
        // An error made by the SDK's schema is a zod error to the merchant's zod.
        const own = schemas.PaymentSchema.safeParse({ ...payment(), gross_amount: 'lots' });
        expect(own.error).toBeInstanceOf(mini.core.$ZodError);
        expect(own.error?.issues.map((issue) => issue.path)).toContainEqual(['gross_amount']);
      });

      it("composes with the merchant's zod/mini, which also sees its schemas as zod schemas", () => {
        const list = mini.array(schemas.PaymentSchema);
        expect(mini.parse(list, [payment(), payment({ status: 'failed' })])).toHaveLength(2);
        expect(mini.safeParse(list, [{ uuid: 'x' }]).success).toBe(false);
        expect(schemas.PaymentSchema).toBeInstanceOf(mini.core.$ZodType);
        expect(schemas.PaymentSchema).toBeInstanceOf(mini.ZodMiniObject);
      });

      it("converts to JSON Schema with the merchant's zod", () => {
        const json = classic.toJSONSchema(schemas.PayoutCreateParamsSchema, { unrepresentable: 'any' }) as {
          properties: Record<string, unknown>;
        };
        expect(Object.keys(json.properties)).toEqual(expect.arrayContaining(['amount', 'currency']));
      });
    });
  }
});
