/**
 * ISO 4217 currency codes and their minor-unit exponents, read from the platform's `Intl` data
 * (`Intl.supportedValuesOf('currency')` for the codes, `Intl.NumberFormat` for the exponent), which
 * Node, Bun, Deno, Cloudflare Workers and Vercel's Edge runtime all carry. Only where that data is
 * known to differ from ISO 4217 does a table below correct it.
 */

/**
 * The ISO 4217 codes the SDK knows, for autocompletion. A code the platform adds later is accepted
 * by the type through {@link CurrencyCode}, and at run time once the platform lists it.
 */
export type KnownCurrencyCode =
  | 'AED'
  | 'AFN'
  | 'ALL'
  | 'AMD'
  | 'ANG'
  | 'AOA'
  | 'ARS'
  | 'AUD'
  | 'AWG'
  | 'AZN'
  | 'BAM'
  | 'BBD'
  | 'BDT'
  | 'BGN'
  | 'BHD'
  | 'BIF'
  | 'BMD'
  | 'BND'
  | 'BOB'
  | 'BRL'
  | 'BSD'
  | 'BTN'
  | 'BWP'
  | 'BYN'
  | 'BZD'
  | 'CAD'
  | 'CDF'
  | 'CHF'
  | 'CLP'
  | 'CNY'
  | 'COP'
  | 'CRC'
  | 'CUC'
  | 'CUP'
  | 'CVE'
  | 'CZK'
  | 'DJF'
  | 'DKK'
  | 'DOP'
  | 'DZD'
  | 'EGP'
  | 'ERN'
  | 'ETB'
  | 'EUR'
  | 'FJD'
  | 'FKP'
  | 'GBP'
  | 'GEL'
  | 'GHS'
  | 'GIP'
  | 'GMD'
  | 'GNF'
  | 'GTQ'
  | 'GYD'
  | 'HKD'
  | 'HNL'
  | 'HRK'
  | 'HTG'
  | 'HUF'
  | 'IDR'
  | 'ILS'
  | 'INR'
  | 'IQD'
  | 'IRR'
  | 'ISK'
  | 'JMD'
  | 'JOD'
  | 'JPY'
  | 'KES'
  | 'KGS'
  | 'KHR'
  | 'KMF'
  | 'KPW'
  | 'KRW'
  | 'KWD'
  | 'KYD'
  | 'KZT'
  | 'LAK'
  | 'LBP'
  | 'LKR'
  | 'LRD'
  | 'LSL'
  | 'LYD'
  | 'MAD'
  | 'MDL'
  | 'MGA'
  | 'MKD'
  | 'MMK'
  | 'MNT'
  | 'MOP'
  | 'MRU'
  | 'MUR'
  | 'MVR'
  | 'MWK'
  | 'MXN'
  | 'MYR'
  | 'MZN'
  | 'NAD'
  | 'NGN'
  | 'NIO'
  | 'NOK'
  | 'NPR'
  | 'NZD'
  | 'OMR'
  | 'PAB'
  | 'PEN'
  | 'PGK'
  | 'PHP'
  | 'PKR'
  | 'PLN'
  | 'PYG'
  | 'QAR'
  | 'RON'
  | 'RSD'
  | 'RUB'
  | 'RWF'
  | 'SAR'
  | 'SBD'
  | 'SCR'
  | 'SDG'
  | 'SEK'
  | 'SGD'
  | 'SHP'
  | 'SLE'
  | 'SLL'
  | 'SOS'
  | 'SRD'
  | 'SSP'
  | 'STN'
  | 'SVC'
  | 'SYP'
  | 'SZL'
  | 'THB'
  | 'TJS'
  | 'TMT'
  | 'TND'
  | 'TOP'
  | 'TRY'
  | 'TTD'
  | 'TWD'
  | 'TZS'
  | 'UAH'
  | 'UGX'
  | 'USD'
  | 'UYU'
  | 'UZS'
  | 'VED'
  | 'VES'
  | 'VND'
  | 'VUV'
  | 'WST'
  | 'XAF'
  | 'XCD'
  | 'XCG'
  | 'XOF'
  | 'XPF'
  | 'YER'
  | 'ZAR'
  | 'ZMW'
  | 'ZWG'
  | 'ZWL';

/**
 * An ISO 4217 currency code in capitals: one of {@link KnownCurrencyCode} (offered by autocompletion),
 * or any other string, so a currency the service supports before this SDK's types list it still
 * type-checks. At run time an unknown code is refused.
 */
export type CurrencyCode = KnownCurrencyCode | (string & {});

/**
 * Exponents where the platform's CLDR data gives the number of decimals usually DISPLAYED, which is
 * not the ISO 4217 minor unit the service counts amounts in: CLDR shows IQD and HUF with no decimals,
 * but 1 IQD is 1000 minor units and 1 HUF is 100. Checked against every code the platform lists by
 * the tests.
 */
const ISO_EXPONENTS: Readonly<Record<string, number>> = {
  AFN: 2,
  ALL: 2,
  COP: 2,
  HUF: 2,
  IDR: 2,
  IQD: 3,
  IRR: 2,
  KPW: 2,
  LAK: 2,
  LBP: 2,
  MGA: 2,
  MMK: 2,
  PKR: 2,
  RSD: 2,
  SLL: 2,
  SOS: 2,
  SYP: 2,
  YER: 2,
};

/** Current ISO 4217 codes that some platforms' data predates (Deno has no SLE or ZWG; Node none of VED). */
const RECENT_CODES = ['SLE', 'VED', 'XCG', 'ZWG'];

/**
 * ISO 4217 codes that are not money a payment moves, which some platforms list (Bun lists them
 * all): precious metals, bond units, SDR, the test and "no currency" codes (ISO gives them no minor
 * unit), and the fund codes (units of account such as CLF, UYW, USN).
 */
const NOT_PAYABLE = new Set([
  ...['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX'],
  ...['BOV', 'CHE', 'CHW', 'CLF', 'COU', 'MXV', 'USN', 'UYI', 'UYW'],
]);

let known: Set<string> | null | undefined;

/** The platform's codes, read once; `null` where the platform has no list (an Intl without it). */
function knownCodes(): Set<string> | null {
  if (known !== undefined) return known;
  const list = typeof Intl.supportedValuesOf === 'function' ? safeList() : undefined;
  known = list ? new Set([...list, ...RECENT_CODES].filter((code) => !NOT_PAYABLE.has(code))) : null;
  return known;
}

function safeList(): string[] | undefined {
  try {
    return Intl.supportedValuesOf('currency');
  } catch {
    return undefined;
  }
}

/**
 * `true` for an ISO 4217 code of a currency, in capitals (`'XOF'`, `'GHS'`), as the platform's `Intl`
 * data lists it. Where the runtime carries no such list, any three capital letters pass.
 */
export function isKnownCurrency(code: unknown): code is KnownCurrencyCode {
  if (typeof code !== 'string' || !/^[A-Z]{3}$/.test(code)) return false;
  const codes = knownCodes();
  return codes === null ? !NOT_PAYABLE.has(code) : codes.has(code);
}

const exponents = new Map<string, number>();

/** The ISO 4217 exponent of a code {@link isKnownCurrency} accepted. */
export function isoExponent(code: string): number {
  let exponent = exponents.get(code);
  if (exponent === undefined) {
    exponent =
      ISO_EXPONENTS[code] ??
      new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ??
      2;
    exponents.set(code, exponent);
  }
  return exponent;
}
