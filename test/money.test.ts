/**
 * Money helpers (README "Money helpers"): amounts are integers in minor units (docs/service.md "Money and records"),
 * scaled by the ISO 4217 exponent of the currency: XOF and XAF have none, GHS has 2, TND 3.
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { currencyExponent, formatAmount, fromMinorUnits, isKnownCurrency, PaymentsError, toMinorUnits } from 'payments-sdk';
import { describe, expect, it } from 'vitest';
import { amountFormatterFor } from '../src/money.js';

/** Intl output uses narrow and non-breaking spaces depending on ICU data: compare on plain spaces. */
const plain = (text: string) => text.replace(/\s/gu, ' ');

describe('currencyExponent', () => {
  it.each([
    ['XOF', 0],
    ['XAF', 0],
    ['GNF', 0],
    ['RWF', 0],
    ['UGX', 0],
    ['GHS', 2],
    ['NGN', 2],
    ['KES', 2],
    ['EUR', 2],
    ['TND', 3],
    ['KWD', 3],
    ['IQD', 3],
    ['HUF', 2],
    ['IDR', 2],
    ['xof', 0],
  ])('%s → %i', (currency, exponent) => {
    expect(currencyExponent(currency)).toBe(exponent);
  });

  it.each(['', 'CF', 'CFAF', 'F CFA', '12A'])('refuses %j', (currency) => {
    expect(() => currencyExponent(currency)).toThrow(PaymentsError);
  });

  it.each(['CFA', 'XYZ', 'ZZZ', 'XXX', 'XTS', 'XAU', 'CLF'])('refuses %j: not an ISO 4217 currency (no guessed exponent)', (currency) => {
    expect(() => currencyExponent(currency)).toThrow(/not an ISO 4217 currency code/);
  });

  it('agrees with ISO 4217 for every code the platform lists (its CLDR display digits differ for some)', () => {
    // ISO 4217 list one (current codes): the minor units that are not 2.
    const iso: Record<string, number> = {
      ...Object.fromEntries('BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX VND VUV XAF XOF XPF'.split(' ').map((c) => [c, 0])),
      ...Object.fromEntries('BHD IQD JOD KWD LYD OMR TND'.split(' ').map((c) => [c, 3])),
    };
    const notPayable = new Set('XAG XAU XBA XBB XBC XBD XDR XPD XPT XSU XTS XUA XXX BOV CHE CHW CLF COU MXV USN UYI UYW'.split(' '));
    const listed = Intl.supportedValuesOf('currency').filter((code) => !notPayable.has(code));
    expect(listed.length).toBeGreaterThan(100);
    const wrong = listed.filter((code) => currencyExponent(code) !== (iso[code] ?? 2));
    expect(wrong).toEqual([]);
  });

  it('the KnownCurrencyCode type lists exactly the codes accepted at run time (autocompletion matches the check)', () => {
    const source = readFileSync(fileURLToPath(new URL('../src/currencies.ts', import.meta.url)), 'utf8');
    const union = source.slice(source.indexOf('export type KnownCurrencyCode ='), source.indexOf('export type CurrencyCode ='));
    const typed = [...union.matchAll(/'([A-Z]{3})'/g)].map((match) => match[1] as string);
    expect(typed.length).toBeGreaterThan(150);
    expect(typed.filter((code) => !isKnownCurrency(code))).toEqual([]);
    const accepted = Intl.supportedValuesOf('currency').filter((code) => isKnownCurrency(code));
    expect(accepted.filter((code) => !typed.includes(code))).toEqual([]);
  });

  it('knows current codes that older platform data lacks', () => {
    for (const code of ['SLE', 'VED', 'ZWG', 'XCG']) expect(currencyExponent(code)).toBe(2);
  });
});

describe('toMinorUnits', () => {
  it.each([
    [5000, 'XOF', 5000],
    [5000, 'XAF', 5000],
    [12.5, 'GHS', 1250],
    [19.99, 'GHS', 1999],
    [0.07, 'GHS', 7],
    [1.234, 'TND', 1234],
    [0, 'GHS', 0],
    [-12.5, 'GHS', -1250],
    [123456789.12, 'GHS', 12345678912],
  ])('%d %s → %i', (major, currency, minor) => {
    expect(toMinorUnits(major, currency)).toBe(minor);
  });

  it('float noise is not an extra decimal: 0.1 + 0.2 GHS is 30', () => {
    expect(toMinorUnits(0.1 + 0.2, 'GHS')).toBe(30);
    let sum = 0;
    for (let i = 0; i < 10; i++) sum += 0.1;
    expect(toMinorUnits(sum, 'GHS')).toBe(100);
  });

  it.each([
    [10.5, 'XOF'],
    [2_000_000.5, 'XOF'],
    [12.345, 'GHS'],
    [1.005, 'GHS'],
    [10_000.004, 'GHS'],
    [1.2345, 'TND'],
    [0.001, 'GHS'],
  ])('refuses sub-minor precision: %d %s (never rounded)', (major, currency) => {
    expect(() => toMinorUnits(major, currency)).toThrow(/more decimals than/);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, '12.50' as unknown as number])('refuses %j', (major) => {
    expect(() => toMinorUnits(major, 'GHS')).toThrow(PaymentsError);
  });

  it('refuses amounts beyond the safe integers', () => {
    expect(() => toMinorUnits(1e21, 'XOF')).toThrow(/too large/);
    expect(() => toMinorUnits(1e15, 'GHS')).toThrow(/too large/);
  });
});

describe('fromMinorUnits', () => {
  it.each([
    [5000, 'XOF', 5000],
    [1250, 'GHS', 12.5],
    [1999, 'GHS', 19.99],
    [1234, 'TND', 1.234],
    [-1250, 'GHS', -12.5],
  ])('%i %s → %d', (minor, currency, major) => {
    expect(fromMinorUnits(minor, currency)).toBe(major);
  });

  it.each([12.5, Number.NaN, 2 ** 53])('refuses %d (minor units are integers)', (minor) => {
    expect(() => fromMinorUnits(minor, 'GHS')).toThrow(PaymentsError);
  });

  it('round-trips with toMinorUnits for every exponent', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), fc.constantFrom('XOF', 'GHS', 'TND', 'IQD'), (minor, currency) => {
        expect(toMinorUnits(fromMinorUnits(minor, currency), currency)).toBe(minor);
      }),
      { numRuns: 500 },
    );
  });
});

describe('formatAmount', () => {
  it('XOF and XAF have no decimals', () => {
    expect(plain(formatAmount(5000, 'XOF', 'fr-SN'))).toBe('5 000 F CFA');
    expect(plain(formatAmount(5000, 'XAF', 'fr-CM'))).toBe('5 000 FCFA');
    expect(plain(formatAmount(5000, 'XOF', 'en-US'))).toBe('F CFA 5,000');
  });

  it('GHS has two decimals, in the locale style', () => {
    expect(formatAmount(1250, 'GHS', 'en-GH')).toBe('GH₵12.50');
    expect(formatAmount(100, 'GHS', 'en-GH')).toBe('GH₵1.00');
  });

  it('a 3-decimal currency shows three decimals', () => {
    expect(plain(formatAmount(1234, 'TND', 'en-US'))).toBe('TND 1.234');
    expect(plain(formatAmount(1000, 'KWD', 'en-US'))).toBe('KWD 1.000');
  });

  it('shows the ISO 4217 decimals where the locale data would show fewer', () => {
    expect(plain(formatAmount(1234, 'IQD', 'en-US'))).toBe('IQD 1.234');
  });

  it('refuses a code that is not an ISO 4217 currency instead of assuming two decimals', () => {
    expect(() => formatAmount(5000, 'XYZ')).toThrow(/"XYZ" is not an ISO 4217 currency code/);
    expect(() => toMinorUnits(5000, 'CFA')).toThrow(/"CFA" is not an ISO 4217 currency code/);
    expect(() => fromMinorUnits(5000, 'CFA')).toThrow(PaymentsError);
  });

  it('falls back to "<amount> <CODE>" when Intl refuses the locale', () => {
    expect(formatAmount(1250, 'ghs', 'not a locale!')).toBe('12.50 GHS');
    expect(formatAmount(5000, 'XOF', 'not a locale!')).toBe('5000 XOF');
  });

  it('refuses an amount that is not an integer in minor units, and a bad code', () => {
    expect(() => formatAmount(12.5, 'GHS')).toThrow(PaymentsError);
    expect(() => formatAmount(1250, 'GH')).toThrow(PaymentsError);
  });
  it('amountFormatterFor formats as formatAmount does, checking the code once and each amount', () => {
    const ghs = amountFormatterFor('ghs', 'en-GH');
    expect([0, 1, 100, 1250, 123_456_789].map(ghs)).toEqual(['GH₵0.00', 'GH₵0.01', 'GH₵1.00', 'GH₵12.50', 'GH₵1,234,567.89']);
    expect(amountFormatterFor('GHS', 'not a locale!')(1250)).toBe('12.50 GHS');
    expect(() => amountFormatterFor('XYZ')).toThrow(/"XYZ" is not an ISO 4217 currency code/);
    expect(() => ghs(12.5)).toThrow(PaymentsError);
  });
});
