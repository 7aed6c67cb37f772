/**
 * Money helpers (API.md "Resources"): amounts travel as integers in minor units (service-api.md §2),
 * scaled by the ISO 4217 exponent of the currency. XOF and XAF have none: 5000 XOF is 5000 minor units.
 */
import { PaymentsError } from './core/errors.js';

// ISO 4217 minor-unit exponents that are not 2. Every other code has 2 (GHS, NGN, KES, USD, EUR...).
const EXPONENTS: Record<string, number> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/** The ISO 4217 exponent of `currency`: 0 for XOF/XAF, 2 for GHS, 3 for TND... */
export function currencyExponent(currency: string): number {
  const code = checkCurrency(currency);
  return EXPONENTS[code] ?? 2;
}

/**
 * Major units → minor units: `toMinorUnits(12.5, 'GHS')` is `1250`; `toMinorUnits(5000, 'XOF')` is `5000`.
 * Refuses an amount with more decimals than the currency has (`toMinorUnits(10.5, 'XOF')`): this is
 * money, it is never rounded (float noise such as `0.1 + 0.2` is not an extra decimal and is accepted).
 */
export function toMinorUnits(major: number, currency: string): number {
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
export function fromMinorUnits(minor: number, currency: string): number {
  const exponent = currencyExponent(currency);
  if (!Number.isSafeInteger(minor))
    throw new PaymentsError(`fromMinorUnits: amount must be an integer in minor units, got ${String(minor)}.`);
  return exponent === 0 ? minor : minor / 10 ** exponent;
}

/**
 * Formats an amount in minor units for display, with `Intl` where it knows the currency:
 * `formatAmount(5000, 'XOF', 'fr-SN')` → `"5 000 F CFA"`, `formatAmount(1250, 'GHS', 'en-GH')` → `"GH₵12.50"`.
 */
export function formatAmount(amount: number, currency: string, locale?: string): string {
  const exponent = currencyExponent(currency);
  const major = fromMinorUnits(amount, currency);
  try {
    return new Intl.NumberFormat(locale, {
      style: 'currency',
      currency: currency.toUpperCase(),
      minimumFractionDigits: exponent,
      maximumFractionDigits: exponent,
    }).format(major);
  } catch {
    return `${major.toFixed(exponent)} ${currency.toUpperCase()}`;
  }
}

function checkCurrency(currency: string): string {
  if (typeof currency !== 'string' || !/^[A-Za-z]{3}$/.test(currency)) {
    throw new PaymentsError(`currency must be a 3-letter ISO 4217 code, got ${JSON.stringify(currency)}.`);
  }
  return currency.toUpperCase();
}
