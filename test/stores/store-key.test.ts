/** `storeKey`: readable keys for plain ids, and two different ids never one key. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { storeKey } from '../../src/stores/store.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('storeKey', () => {
  it('keeps plain ids readable: the namespace, then the ids, joined by ":" (the last one may hold ":")', () => {
    expect(storeKey('webhook', 'evt_123')).toBe('webhook:evt_123');
    expect(storeKey('payment', '7d7a3c58-2e5b-4a56-9a43-8f4f3b1d1c11', 'payment.failed')).toBe(
      'payment:7d7a3c58-2e5b-4a56-9a43-8f4f3b1d1c11:payment.failed',
    );
    expect(storeKey('bulk', 'payroll-2026-11', 'line:42')).toBe('bulk:payroll-2026-11:line:42');
    expect(storeKey('webhook', 'évènement 😀')).toBe('webhook:évènement 😀');
  });

  it('writes an id that holds NUL, a lone surrogate, a leading "~" or (not last) ":" as "~" and its UTF-16 hex', () => {
    expect(storeKey('webhook', 'a\u0000')).toBe('webhook:~00610000');
    expect(storeKey('webhook', '\uD800')).toBe('webhook:~d800');
    expect(storeKey('webhook', '~')).toBe('webhook:~007e');
    expect(storeKey('bulk', 'a:b', 'c')).toBe('bulk:~0061003a0062:c');
    expect(storeKey('webhook', 'a~b')).toBe('webhook:a~b');
  });

  it('makes well-formed keys without NUL, whatever the ids', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 3 }), (parts) => {
        const key = storeKey('bulk', ...parts);
        expect(key.includes('\u0000')).toBe(false);
        expect(LONE_SURROGATE.test(key)).toBe(false);
      }),
    );
  });

  // Each namespace has its number of ids (webhook: the event id; payment: uuid and event type; bulk:
  // batch and row), so keys are compared at those counts.
  it('never gives two different ids one key, within a namespace or across them', () => {
    const id = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.constantFrom(':', '~', '~003a', 'a:b', '\u0000', '\uD800', '\uDC00'),
    );
    const key = fc.oneof(
      fc.tuple(fc.constant('webhook' as const), id).map(([namespace, a]) => ({ namespace, ids: [a] })),
      fc.tuple(fc.constantFrom('payment' as const, 'bulk' as const), id, id).map(([namespace, a, b]) => ({ namespace, ids: [a, b] })),
    );
    fc.assert(
      fc.property(key, key, (k1, k2) => {
        fc.pre(JSON.stringify(k1) !== JSON.stringify(k2));
        expect(storeKey(k1.namespace, ...k1.ids)).not.toBe(storeKey(k2.namespace, ...k2.ids));
      }),
      { numRuns: 5_000 },
    );
  });

  it('keeps a long id whole', () => {
    const long = 'x'.repeat(10_000);
    expect(storeKey('bulk', 'b', long)).toBe(`bulk:b:${long}`);
  });
});
