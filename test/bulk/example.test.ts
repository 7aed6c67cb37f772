/** examples/bulk-payouts.ts (the runnable example of docs/bulk-payouts.md) runs and ends with one payout per row. */
import { describe, expect, it } from 'vitest';
import { main } from '../../examples/bulk-payouts.js';

describe('examples/bulk-payouts.ts', () => {
  it('stops after 40 results, resumes from the store file, and the service holds exactly 120 payouts', async () => {
    const lines: string[] = [];
    const { first, second, payouts } = await main((line) => lines.push(line));
    expect(first.aborted).toBe(true);
    expect(second).toMatchObject({ total: 120, skipped: first.created, created: 120 - first.created, failed: 0 });
    expect(payouts).toBe(120);
    expect(lines.some((l) => l.startsWith('second run:'))).toBe(true);
  }, 30_000);
});
