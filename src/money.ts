/**
 * Money helpers: amounts travel as integers in minor units, scaled by the ISO 4217 exponent of the
 * currency. XOF and XAF have none: 5000 XOF is 5000 minor units. An unknown code is an error, never
 * a guessed exponent.
 */
import { PaymentsError } from './core/errors.js';
import { type CurrencyCode, isKnownCurrency, isoExponent } from './currencies.js';

/**
 * The ISO 4217 exponent of `currency`: 0 for XOF/XAF, 2 for GHS, 3 for TND... Throws
 * {@link PaymentsError} for a code that is not an ISO 4217 currency (`'CFA'`, `'XYZ'`).
 */
export function currencyExponent(currency: CurrencyCode): number {
  return isoExponent(checkCurrency(currency));
}

/**
 * Major units → minor units: `toMinorUnits(12.5, 'GHS')` is `1250`; `toMinorUnits(5000, 'XOF')` is `5000`.
 * Refuses an amount with more decimals than the currency has (`toMinorUnits(10.5, 'XOF')`): this is
 * money, it is never rounded (float noise such as `0.1 + 0.2` is not an extra decimal and is accepted).
 */
export function toMinorUnits(major: number, currency: CurrencyCode): number {
  const exponent = currencyExponent(currency);
  if (typeof major !== 'number' || !Number.isFinite(major))
    throw new PaymentsError(`toMinorUnits: amount must be a finite number, got ${String(major)}.`);
  const scaled = major * 10 ** exponent;
  const minor = Math.round(scaled) || 0;
  // Float noise (19.99 × 100 = 1998.9999…, or 0.1 + 0.2 = 0.30000000000000004) is a few units in
  // the last place and is rounded away; a real extra decimal is at least 0.1 of a minor unit for a
  // one-digit excess and is refused, never rounded: this is money. The tolerance is relative
  // (2^-44, a few hundred ulps, for sums of many floats) so it stays far below 0.1 for any realistic
  // amount (≈ 6e-4 minor units at 10^10); a fixed relative 1e-6 let 10000.004 GHS through.
  if (Math.abs(scaled - minor) > Math.max(1, Math.abs(scaled)) * 2 ** -44) {
    throw new PaymentsError(`toMinorUnits: ${major} ${currency} has more decimals than ${currency} allows (${exponent}).`);
  }
  if (!Number.isSafeInteger(minor)) throw new PaymentsError(`toMinorUnits: ${major} ${currency} is too large.`);
  return minor;
}

/** Minor units → major units: `fromMinorUnits(1250, 'GHS')` is `12.5`; `fromMinorUnits(5000, 'XOF')` is `5000`. */
export function fromMinorUnits(minor: number, currency: CurrencyCode): number {
  return majorUnits(minor, currencyExponent(currency));
}

/** `minor` scaled down by `exponent`, refused unless it is a safe integer. */
function majorUnits(minor: number, exponent: number): number {
  if (!Number.isSafeInteger(minor))
    throw new PaymentsError(`fromMinorUnits: amount must be an integer in minor units, got ${String(minor)}.`);
  return exponent === 0 ? minor : minor / 10 ** exponent;
}

/**
 * Formats an amount in minor units for display, with `Intl` where it knows the currency:
 * `formatAmount(5000, 'XOF', 'fr-SN')` → `"5 000 F CFA"`, `formatAmount(1250, 'GHS', 'en-GH')` → `"GH₵12.50"`.
 */
export function formatAmount(amount: number, currency: CurrencyCode, locale?: string): string {
  return amountFormatterFor(currency, locale)(amount);
}

/**
 * `formatAmount` for one currency and locale, with the code checked and the `Intl.NumberFormat`
 * found once: for code that formats many amounts of the same currency (an export formats hundreds
 * of thousands). Throws like `formatAmount` for an unknown currency, and the returned function for
 * an amount that is not a safe integer.
 */
export function amountFormatterFor(currency: CurrencyCode, locale?: string): (amount: number) => string {
  const code = checkCurrency(currency);
  const exponent = isoExponent(code);
  let formatter: Intl.NumberFormat | undefined;
  try {
    formatter = currencyFormatter(locale, code, exponent);
  } catch {
    // A locale Intl refuses: the plain form below.
  }
  return (amount) => {
    const major = majorUnits(amount, exponent);
    if (formatter) {
      try {
        return formatter.format(major);
      } catch {
        // Fall through to the plain form.
      }
    }
    return `${major.toFixed(exponent)} ${code}`;
  };
}

/**
 * Formatters already built, by locale and currency: building an `Intl.NumberFormat` costs far more
 * than formatting with one, and a list or an export formats the same few currencies again and again.
 * Cleared when it reaches {@link MAX_FORMATTERS}, so that arbitrary locales cannot grow it.
 */
const formatters = new Map<string, Intl.NumberFormat>();
const MAX_FORMATTERS = 64;

function currencyFormatter(locale: string | undefined, code: string, exponent: number): Intl.NumberFormat {
  const key = `${locale ?? ''}|${code}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = new Intl.NumberFormat(locale, {
      style: 'currency',
      currency: code,
      minimumFractionDigits: exponent,
      maximumFractionDigits: exponent,
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(key, formatter);
  }
  return formatter;
}

/** The code in capitals, or a {@link PaymentsError} naming it when it is not an ISO 4217 currency. */
function checkCurrency(currency: string): string {
  if (typeof currency !== 'string' || !/^[A-Za-z]{3}$/.test(currency)) {
    throw new PaymentsError(`currency must be a 3-letter ISO 4217 code, got ${JSON.stringify(currency)}.`);
  }
  const code = currency.toUpperCase();
  if (!isKnownCurrency(code)) {
    throw new PaymentsError(`${JSON.stringify(currency)} is not an ISO 4217 currency code (e.g. "XOF", "GHS").`);
  }
  return code;
}
