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

  it('leaves safe ids, other keys and strings that look like ids alone', () => {
    expect(parseJson('{"id":9007199254740991,"n":12345678901234567890,"note":"id\\": 12345678901234567890"}')).toEqual({
      id: 9007199254740991,
      n: Number('12345678901234567890'),
      note: 'id": 12345678901234567890',
    });
    expect(parseJson('{"id":"12345678901234567890","paid":-1.5}')).toEqual({ id: '12345678901234567890', paid: -1.5 });
  });
});
