/** The state every part of the engine works on: options read once, merchants, the clock, the insertion counter. */

import { normalizeBaseUrl } from '../../internal/config.js';
import { HOUR_MS } from '../../internal/durations.js';
import { randomHex } from '../ids.js';
import { MockServiceError } from '../mock-errors.js';
import {
  DEFAULT_COUNTRIES,
  DEFAULT_FEES,
  DEFAULT_RATES,
  defaultRefusal,
  type MockChargeInput,
  type MockCountry,
  type MockFeeInput,
  type MockFees,
  type MockServiceOptions,
} from '../options.js';
import { Clock } from './clock.js';
import { createMerchants, type MerchantRegistry } from './merchants.js';
import type { Stored } from './model.js';

/** The mutable state of one mock service. */
export interface EngineState {
  readonly baseUrl: string;
  /**
   * Origin of the hosted pages (`checkout_url`): the `checkoutBaseUrl` option, else the base URL, or
   * the origin of a running `mock.listen()` server, so the address a test opens reaches the mock.
   */
  hostedOrigin: string;
  /** `true` when `checkoutBaseUrl` was given: then it stays the origin of `checkout_url` and link `url`. */
  readonly hostedOriginFixed: boolean;
  readonly webhookSecret: string;
  readonly options: MockServiceOptions;
  readonly clock: Clock;
  readonly merchants: MerchantRegistry;
  readonly countries: Record<string, MockCountry>;
  readonly rates: Record<string, number>;
  readonly fees: (input: MockFeeInput) => MockFees;
  readonly refuse: (charge: MockChargeInput) => string | null;
  readonly sessionTtlMs: number;
  /** Insertion counter: every creation takes the next value, which orders resources made in the same millisecond. */
  seq: number;
  /**
   * Each resource map sorted newest first, kept until the next creation (every creation bumps `seq`;
   * a reset makes new maps): a list request then costs a page, not a sort of everything, so a mock
   * seeded with 100,000 payments still pages quickly.
   */
  readonly sorted: WeakMap<Map<string, Stored<unknown>>, { seq: number; size: number; items: Stored<unknown>[] }>;
}

/** Reads the options once and builds the merchants; the `seed` option is applied by the caller. */
export function createEngineState(baseUrl: string, options: MockServiceOptions): EngineState {
  const hostedOrigin = options.checkoutBaseUrl === undefined ? baseUrl : normalizeBaseUrl(options.checkoutBaseUrl);
  const clock = new Clock(options.now);
  const webhookSecret = options.webhookSecret ?? `whsec_mock_${randomHex(24)}`;
  // Blank is refused as verifyWebhook refuses it: deliveries signed with it would all be answered 500.
  if (typeof webhookSecret !== 'string' || webhookSecret.trim() === '')
    throw new MockServiceError('webhookSecret must be a non-blank string.');
  const countries = options.countries ?? { ...DEFAULT_COUNTRIES };
  const rates = options.rates ?? { ...DEFAULT_RATES };
  const fees = feeFunction(options.fees ?? DEFAULT_FEES);
  return {
    baseUrl,
    hostedOrigin,
    hostedOriginFixed: options.checkoutBaseUrl !== undefined,
    webhookSecret,
    options,
    clock,
    countries,
    rates,
    fees,
    refuse: options.refuseCharge ?? defaultRefusal,
    sessionTtlMs: options.checkoutSessionTtlMs ?? HOUR_MS,
    merchants: createMerchants(options),
    seq: 0,
    sorted: new WeakMap(),
  };
}

function feeFunction(rule: NonNullable<MockServiceOptions['fees']>): (input: MockFeeInput) => MockFees {
  if (typeof rule === 'function') return rule;
  const psp = rule.psp ?? 0;
  const platform = rule.platform ?? 0;
  if (!(psp >= 0 && platform >= 0 && psp + platform <= 1)) {
    throw new MockServiceError(
      `fees: psp and platform are fractions of the gross amount (≥ 0, summing to at most 1), got ${JSON.stringify(rule)}.`,
    );
  }
  return ({ gross_amount }) => ({
    psp_fee_amount: Math.round(gross_amount * psp),
    platform_fee_amount: Math.round(gross_amount * platform),
  });
}
