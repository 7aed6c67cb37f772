import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/internal/json.js';

// The pre-check that decides whether parseJson revives ids is a hand-written scan: these bodies pin
// down that it finds an unsafe id wherever JSON allows it to be written, and only there.
describe('parseJson: where an unsafe id may be written', () => {
  it('finds it after many keys ending in "id" that hold strings or safe numbers (a page of payments)', () => {
    const items = Array.from({ length: 50 }, (_, i) => `{"uuid":"u${i}","paid":true,"order_id":${i}}`).join(',');
    const text = `{"data":[${items},{"uuid":"last","payout_id":12345678901234567890}]}`;
    const parsed = parseJson(text) as { data: Record<string, unknown>[] };
    expect(parsed.data.at(-1)).toEqual({ uuid: 'last', payout_id: '12345678901234567890' });
    expect(parsed.data[3]).toEqual({ uuid: 'u3', paid: true, order_id: 3 });
  });

  it('reads JSON whitespace around the colon and before a minus sign (pretty-printed bodies)', () => {
    expect(parseJson('{\n  "id" \r\n:\t -12345678901234567890\n}')).toEqual({ id: '-12345678901234567890' });
    expect(parseJson('{ "wallet_id" : 7.5e-1, "order_id": 7.0e1 }')).toEqual({ wallet_id: '7.5e-1', order_id: 70 });
    expect(parseJson('{ "id" : 1E400 }')).toEqual({ id: '1E400' });
  });

  it('finds it under a key whose "i" or "d" is written as a \\u escape', () => {
    expect(parseJson('{"\\u0069d":12345678901234567890}')).toEqual({ id: '12345678901234567890' });
    expect(parseJson('{"order_i\\u0064" : 12345678901234567890}')).toEqual({ order_id: '12345678901234567890' });
    expect(parseJson('{"\\u0069\\u0064":1.5}')).toEqual({ id: '1.5' });
  });

  it('leaves safe ids, other keys and strings that look like ids alone', () => {
    expect(parseJson('{"id":9007199254740991,"n":12345678901234567890,"note":"id\\": 12345678901234567890"}')).toEqual({
      id: 9007199254740991,
      n: Number('12345678901234567890'),
      note: 'id": 12345678901234567890',
    });
    expect(parseJson('{"id":"12345678901234567890","paid":-1.5}')).toEqual({ id: '12345678901234567890', paid: -1.5 });
  });
});

describe('parseJson: the pre-check never skips an id the reviver would keep exact', () => {
  // The reference revives every body: what parseJson returns must be the same, whatever the pre-check
  // decided. Bodies are random objects whose numbers are written as raw text (unsafe integers,
  // fractions, exponents, safe integers, negatives) under id keys and other keys, with JSON whitespace
  // around each colon and comma, alone or nested in a list envelope.
  const reference = (text: string) =>
    JSON.parse(text, ((key: string, value: unknown, context?: { source?: string }) =>
      typeof value === 'number' && !Number.isSafeInteger(value) && (key === 'id' || key.endsWith('_id')) ? context?.source : value) as (
      key: string,
      value: unknown,
    ) => unknown);
  // Integers of 15 to 25 digits (an id beyond 2^53 has 16 or more), either sign, and 2^53 ± 2.
  const longInteger = fc
    .tuple(fc.boolean(), fc.integer({ min: 1, max: 9 }), fc.stringMatching(/^[0-9]{14,24}$/))
    .map(([negative, lead, rest]) => `${negative ? '-' : ''}${lead}${rest}`);
  const numberText = fc.oneof(
    longInteger,
    fc.constantFrom('9007199254740991', '9007199254740992', '9007199254740993', '-9007199254740993'),
    fc.integer().map(String),
    fc.tuple(fc.nat(999), fc.nat(999)).map(([a, b]) => `${a}.${b}`),
    fc.tuple(fc.integer({ min: -9, max: 9 }), fc.constantFrom('e', 'E', 'e+', 'e-'), fc.nat(400)).map(([a, e, x]) => `${a}${e}${x}`),
  );
  const value = fc.oneof(
    numberText,
    fc.jsonValue().map((v) => JSON.stringify(v)),
  );
  const key = fc.oneof(fc.constantFrom('id', 'uuid', 'order_id', 'paid', 'payout_id', 'n', 'valid'), fc.string({ maxLength: 6 }));
  const space = fc.stringMatching(/^[ \t\n\r]{0,3}$/);
  // A key as JSON text: plain, or with letters written as \u escapes (as some encoders write them).
  const keyText = fc.oneof(
    key.map((k) => JSON.stringify(k)),
    fc.constantFrom(
      '"\\u0069d"',
      '"i\\u0064"',
      '"\\u0069\\u0064"',
      '"order_\\u0069d"',
      '"payout_i\\u0064"',
      '"\\u0075uid"',
      '"pa\\u0069d"',
    ),
  );
  const member = fc.tuple(keyText, space, space, value).map(([k, before, after, v]) => `${k}${before}:${after}${v}`);
  const object = fc.tuple(fc.array(member, { maxLength: 8 }), space).map(([members, gap]) => `{${members.join(`,${gap}`)}}`);
  const body = fc.oneof(
    object,
    fc.array(object, { maxLength: 4 }).map((items) => `{"data": [${items.join(',')}], "links": {}}`),
  );

  it('returns what a parse that always revives returns', () => {
    fc.assert(
      fc.property(body, (text) => {
        expect(parseJson(text)).toEqual(reference(text));
      }),
      { numRuns: 3000 },
    );
  });
});
