/**
 * The one runtime smoke, written as a merchant would: it imports the package by
 * name. scripts/test-runtimes.ts copies this file into a throwaway consumer directory whose
 * node_modules holds the packed tarball (`npm pack`), so these imports read the BUILT files that npm
 * would publish, never src/. It runs unchanged on Node 22, 24 and 26, Bun, Deno, and (bundled by esbuild
 * into one script) in Vercel's EdgeVM.
 *
 * It creates a checkout session against the loopback server of the host script, then verifies a
 * webhook signed with `signWebhookPayload`. It prints one `SMOKE_RESULT {json}` line when run as the
 * main module; the host also checks, on its side, what the server received.
 *
 * Web APIs only below (fetch, Headers, TextEncoder, crypto): nothing runtime-specific but the label.
 */
import * as sdkModule from 'payments-sdk';
import * as schemasModule from 'payments-sdk/schemas';
import * as webhooksModule from 'payments-sdk/webhooks';

/** What the host passes (as one JSON argument, or as the argument of `runSmoke` in the EdgeVM). */
export interface SmokeConfig {
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
}

/** What the smoke reports back. */
export interface SmokeResult {
  runtime: string;
  checks: string[];
}

/** The parts of the main entry the smoke uses (the ESM namespace, or what `require` returned). */
export type SmokeSdk = Pick<
  typeof sdkModule,
  'PaymentsClient' | 'InvalidParamsError' | 'VERSION' | 'currencyExponent' | 'toMinorUnits' | 'PaymentsError'
>;
/** The parts of `payments-sdk/schemas` the smoke uses. */
export type SmokeSchemas = Pick<typeof schemasModule, 'PaymentSchema'>;
/** The parts of `payments-sdk/webhooks` the smoke uses. */
export type SmokeWebhooks = Pick<typeof webhooksModule, 'verifyWebhook' | 'signWebhookPayload' | 'WebhookVerificationError'>;

// biome-ignore lint/suspicious/noExplicitAny: runtime detection on globals that have no types here.
const g = globalThis as any;

/** Name and version of the runtime this runs on, from the inside (Bun and Deno also define `process`). */
export function runtimeLabel(): string {
  if (typeof g.Bun !== 'undefined') return `bun ${g.Bun.version}`;
  if (typeof g.Deno !== 'undefined') return `deno ${g.Deno.version.deno}`;
  if (typeof g.EdgeRuntime === 'string') return `edge-runtime (EdgeRuntime=${g.EdgeRuntime})`;
  if (g.navigator?.userAgent === 'Cloudflare-Workers') return 'workerd (navigator.userAgent=Cloudflare-Workers)';
  if (typeof g.process?.versions?.node === 'string') return `node ${g.process.versions.node}`;
  return 'unknown';
}

function check(condition: unknown, what: string, checks: string[]): void {
  if (!condition) throw new Error(`smoke check failed: ${what}`);
  checks.push(what);
}

/** Lowercase hex HMAC-SHA256 of `body` under `secret`, with Web Crypto alone. */
async function webCryptoHmacHex(body: string, secret: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(body)));
  return Array.from(mac, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** A payment as the service sends it in a `payment.succeeded` event. */
const payment = {
  uuid: '9b2f8a1e-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
  checkout_session: '01JD3Z8Q4X5Y6Z7A8B9C0D1E2F',
  gross_amount: 5000,
  psp_fee_amount: 75,
  platform_fee_amount: 25,
  net_amount_to_merchant: 4900,
  currency: 'XOF',
  payment_method: 'mobile_money',
  mobile_money_country: 'SEN',
  mobile_money_provider: 'orange',
  psp_reference: '1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9',
  status: 'succeeded',
  failure_reason: null,
  created_at: '2026-11-20T10:15:00+00:00',
};

/** Runs every check; throws on the first that fails. */
export async function runSmoke(
  config: SmokeConfig,
  sdk: SmokeSdk = sdkModule,
  webhooks: SmokeWebhooks = webhooksModule,
  schemas: SmokeSchemas = schemasModule,
): Promise<SmokeResult> {
  const checks: string[] = [];
  check(typeof sdk.VERSION === 'string' && sdk.VERSION.length > 0, `VERSION ${sdk.VERSION}`, checks);

  // 1. A checkout session against the host's loopback server.
  const client = new sdk.PaymentsClient({
    apiKey: config.apiKey,
    baseUrl: config.baseUrl,
    webhookSecret: config.webhookSecret,
    maxRetries: 0,
    timeout: 15_000,
  });
  check(client.mode === 'sandbox', 'client.mode is sandbox for an sk_test_ key', checks);
  const {
    data: session,
    response,
    idempotencyKey,
    replayed,
  } = await client.checkoutSessions
    .create({
      amount: 5000,
      currency: 'XOF',
      description: 'Runtime smoke',
      success_url: 'https://shop.example/success',
      cancel_url: 'https://shop.example/cancel',
      metadata: { order_id: '1042' },
    })
    .withResponse();
  check(response.status === 201 && replayed === false, 'checkoutSessions.create answered 201, not a replay', checks);
  check(typeof idempotencyKey === 'string' && UUID_V4.test(idempotencyKey), 'a fresh UUID v4 Idempotency-Key', checks);
  // The server echoes the key it received in metadata: the header really left with the request.
  check(session.metadata?.idempotency_key_seen === idempotencyKey, 'the server received that Idempotency-Key', checks);
  check(session.status === 'created' && session.amount === 5000 && session.currency === 'XOF', 'session unwrapped from { data }', checks);
  check(typeof session.checkout_url === 'string' && session.checkout_url.startsWith('https://'), 'session.checkout_url', checks);

  // 2. Bad params never leave (the host checks that its server saw exactly one request).
  let invalid: unknown;
  try {
    await client.checkoutSessions.create({ amount: 0, currency: 'xof' });
  } catch (error) {
    invalid = error;
  }
  check(invalid instanceof sdk.InvalidParamsError, 'bad params → InvalidParamsError before sending', checks);

  // 2b. Currencies are checked against ISO 4217 with this runtime's Intl data, exponents included.
  let unknownCurrency: unknown;
  try {
    await client.checkoutSessions.create({ amount: 5000, currency: 'CFA' });
  } catch (error) {
    unknownCurrency = error;
  }
  check(unknownCurrency instanceof sdk.InvalidParamsError, "currency 'CFA' → InvalidParamsError before sending", checks);
  let unknownMoney: unknown;
  try {
    sdk.toMinorUnits(5000, 'CFA');
  } catch (error) {
    unknownMoney = error;
  }
  check(
    unknownMoney instanceof sdk.PaymentsError && sdk.currencyExponent('XOF') === 0 && sdk.currencyExponent('IQD') === 3,
    'toMinorUnits refuses CFA; XOF exponent 0, IQD 3',
    checks,
  );

  // 3. A webhook signed as the service signs it, verified from the raw body.
  const body = JSON.stringify({ id: 'evt_smoke_1', type: 'payment.succeeded', data: payment });
  const signature = await webhooks.signWebhookPayload(body, config.webhookSecret);
  check(/^[0-9a-f]{64}$/.test(signature), 'signWebhookPayload → 64 lowercase hex', checks);
  // The SDK signs with node:crypto where the runtime has it (a key object per secret), else Web
  // Crypto: either way the bytes must be a plain Web Crypto HMAC of the body, computed here, also
  // under a secret with non-ASCII text.
  const hmacPath =
    typeof g.process?.getBuiltinModule === 'function' && g.process.getBuiltinModule('node:crypto') ? 'node:crypto' : 'Web Crypto';
  for (const secret of [config.webhookSecret, `${config.webhookSecret} é🙂`]) {
    check(
      (await webhooks.signWebhookPayload(body, secret)) === (await webCryptoHmacHex(body, secret)),
      `signWebhookPayload (${hmacPath}) equals a Web Crypto HMAC`,
      checks,
    );
  }
  const headers = new Headers({
    'content-type': 'application/json',
    'x-service-event': 'payment.succeeded',
    'x-service-signature': signature,
  });
  const event = await webhooks.verifyWebhook({ payload: body, headers, secret: config.webhookSecret });
  check(
    event.id === 'evt_smoke_1' && event.type === 'payment.succeeded' && event.data.uuid === payment.uuid,
    'verifyWebhook (string body)',
    checks,
  );
  const fromBytes = await webhooks.verifyWebhook({ payload: new TextEncoder().encode(body), headers, secret: config.webhookSecret });
  check(fromBytes.id === 'evt_smoke_1', 'verifyWebhook (Uint8Array body)', checks);
  const viaClient = await client.webhooks.verify({ payload: body, headers });
  check(viaClient.id === 'evt_smoke_1', "client.webhooks.verify with the client's webhookSecret", checks);

  // An event id beyond 2^53 keeps every digit (read from the body's text), or is refused: never rounded.
  const bigIdBody = body.replace('"evt_smoke_1"', '1234567890123456789');
  const bigId = await webhooks
    .verifyWebhook({
      payload: bigIdBody,
      signature: await webhooks.signWebhookPayload(bigIdBody, config.webhookSecret),
      secret: config.webhookSecret,
    })
    .then(
      (verified) => verified.id,
      (error: unknown) => error,
    );
  check(bigId === '1234567890123456789', 'an event id beyond 2^53 is kept exact', checks);

  let mismatch: unknown;
  try {
    await webhooks.verifyWebhook({
      payload: body.replace('"gross_amount":5000', '"gross_amount":5001'),
      headers,
      secret: config.webhookSecret,
    });
  } catch (error) {
    mismatch = error;
  }
  // The class comes from the webhooks entry, the only one that exports it.
  check(
    mismatch instanceof webhooks.WebhookVerificationError && mismatch.reason === 'signature_mismatch',
    'tampered body → WebhookVerificationError signature_mismatch',
    checks,
  );

  // 4. payments-sdk/schemas validates a stored payload as the client validates a response.
  // Through Standard Schema (`~standard`), which zod schemas implement: no zod import needed here.
  const valid = schemas.PaymentSchema['~standard'].validate(payment);
  const invalidAmount = schemas.PaymentSchema['~standard'].validate({ ...payment, gross_amount: 50.5 });
  check(
    !(valid instanceof Promise) && !valid.issues && !(invalidAmount instanceof Promise) && (invalidAmount.issues?.length ?? 0) > 0,
    'payments-sdk/schemas: PaymentSchema accepts a payment, refuses a non-integer amount',
    checks,
  );

  return { runtime: runtimeLabel(), checks };
}

/** Runs the smoke from a command line (Node, Bun, Deno): one JSON config argument. */
export async function cli(sdk?: SmokeSdk, webhooks?: SmokeWebhooks, schemas?: SmokeSchemas): Promise<void> {
  const args: string[] = typeof g.Deno !== 'undefined' ? g.Deno.args : g.process.argv.slice(2);
  try {
    const result = await runSmoke(JSON.parse(args[0] ?? '') as SmokeConfig, sdk, webhooks, schemas);
    console.log(`SMOKE_RESULT ${JSON.stringify(result)}`);
  } catch (error) {
    console.log(`SMOKE_ERROR ${JSON.stringify({ runtime: runtimeLabel(), error: String(error) })}`);
    if (error instanceof Error && error.stack) console.error(error.stack);
    if (typeof g.Deno !== 'undefined') g.Deno.exit(1);
    g.process.exitCode = 1;
  }
}

// Not a top-level await: the EdgeVM bundle is an IIFE (where esbuild defines import.meta.main as false).
if (import.meta.main) void cli();
