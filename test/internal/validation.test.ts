import { expect, test } from 'vitest';
import * as z from 'zod/mini';
import { toIssues } from '../../src/internal/zod-issues.js';

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
