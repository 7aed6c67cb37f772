/**
 * zod is built into dist/ (tsup.config.ts `noExternal`), so a merchant's program holds two copies of
 * zod: the SDK's and their own. These tests run on the BUILT package (test/cli/global-setup.ts builds
 * it when stale) and show that the schemas of `payments-sdk/schemas` still compose with the merchant's
 * zod, classic and mini, through ESM and CommonJS.
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

describe('the built package carries its own zod', () => {
  it('no built file imports or requires zod', () => {
    const files = readdirSync(dist).filter((file) => /\.(c?js)$/.test(file));
    expect(files.length).toBeGreaterThan(4);
    const loadsZod = files.filter((file) =>
      /(?:from\s*|import\s*\(\s*|require\s*\(\s*)["']zod(?:\/[^"']*)?["']/.test(readFileSync(join(dist, file), 'utf8')),
    );
    expect(loadsZod).toEqual([]);
  });

  it("ships zod's licence with the package, as the copy in dist/ requires", () => {
    const manifest = JSON.parse(readFileSync(join(dist, '..', 'package.json'), 'utf8')) as { files: string[] };
    expect(manifest.files).toContain('THIRD_PARTY_NOTICES.md');
    const notices = readFileSync(join(dist, '..', 'THIRD_PARTY_NOTICES.md'), 'utf8');
    expect(notices).toContain(readFileSync(require.resolve('zod/package.json').replace(/package\.json$/, 'LICENSE'), 'utf8').trim());
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
        // An error made by the SDK's copy is a zod error to the merchant's copy too.
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
