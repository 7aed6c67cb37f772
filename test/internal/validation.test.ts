import { expect, test } from 'vitest';
import * as classic from 'zod';
import * as z from 'zod/mini';
import { prepareRows } from '../../src/bulk/rows.js';
import { checkOptions, checkParams, checkResponse } from '../../src/internal/validation.js';
import { toIssues } from '../../src/internal/zod-issues.js';
import { toWebhookEvent } from '../../src/webhooks/events.js';

test('issues inside a union keep the path of the union (the field is named, not its parent)', () => {
  const schema = z.object({ data: z.object({ metadata: z.union([z.record(z.string(), z.unknown()), z.null()]) }) });
  const input = { data: { metadata: 42 } };
  const result = schema.safeParse(input);
  expect(result.success).toBe(false);
  const issues = toIssues(result.success ? [] : result.error.issues, input);
  expect(issues).toHaveLength(1);
  expect(issues[0]?.path).toEqual(['data', 'metadata']);
  // The value is read at the full path, so the message describes 42, not the parent object.
  expect(issues[0]?.message).toContain('number');
});

test("issues are in the SDK's words even with classic zod loaded, and a schema's own error still wins", () => {
  // Once classic zod has parsed, its English messages are every zod's in the process, zod/mini's included.
  expect(classic.number().min(1).safeParse(0).error?.issues[0]?.message).toMatch(/Too small/);
  expect(z.int().check(z.minimum(1)).safeParse(0).error?.issues[0]?.message).toMatch(/Too small/);
  const schema = z.object({
    per_page: z.int().check(z.minimum(1)),
    phone: z.string().check(z.regex(/^\d+$/, { error: 'must be digits' })),
  });
  const bad = { per_page: 0, phone: 'x' };
  expect(() => checkParams(schema, bad, 'list params')).toThrow(
    'Invalid list params: per_page: must be ≥ 1, got 0; phone: must be digits.',
  );
  expect(() => checkOptions(schema, bad, 'options')).toThrow('Invalid options: per_page: must be ≥ 1, got 0; phone: must be digits.');
  // A merchant's classic schema, as client.request takes one.
  expect(() => checkResponse(classic.object({ id: classic.string() }), { id: 1 }, 'GET /customers response')).toThrow(
    'id: must be a string, got number',
  );
});

test("a merchant's format check is named by its format, without the value (an e-mail address, a phone number)", () => {
  const schema = classic.object({ email: classic.email(), id: classic.uuid() });
  let message = '';
  try {
    checkResponse(schema, { email: 'ami@example', id: 'x' }, 'GET /customers response');
  } catch (error) {
    message = (error as Error).message;
  }
  expect(message).toContain('email: does not match the email format; id: does not match the uuid format');
  expect(message).not.toContain('ami@example');
});

test("a webhook event's data and a bulk row are worded by the SDK too with classic zod loaded", async () => {
  expect(classic.number().min(1).safeParse(0).error?.issues[0]?.message).toMatch(/Too small/);
  const event = { id: 'evt_1', type: 'payment.succeeded', data: { uuid: 'x', gross_amount: 'ten' } };
  expect(() => toWebhookEvent(event)).toThrow(/data\.gross_amount: must be/);
  expect(() => toWebhookEvent(event)).not.toThrow(/Invalid input|expected/);
  const error = await prepareRows([{ amount: 0 }], { batchId: 'b' }).then(
    () => undefined,
    (thrown: unknown) => thrown as Error,
  );
  expect(error?.message).toMatch(/must be/);
  expect(error?.message).not.toMatch(/Invalid input|Too small|expected/);
});
