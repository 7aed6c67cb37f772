/**
 * `payments-sdk mock`: the testing kit's model of the service over HTTP on a loopback address, so
 * that tests in any language and a merchant's app in development can run against it. Direct charges
 * settle and payouts move along on their own after `--settle-after` ms; checkout sessions are paid
 * or cancelled on their hosted page (its own origin). With `--forward-to`, every webhook delivery is
 * posted, signed, to the merchant's endpoint, and one line per delivery gives the endpoint's status.
 * The API's root serves a live dashboard (`dashboard/`); a `--seed` file keeps the keys and webhook
 * secret across restarts (`seed-file.ts`).
 */
import type { Command } from 'commander';
import { isLoopback, type WebhookDelivery } from '../testing/delivery.js';
import { MockServiceError } from '../testing/mock-errors.js';
import { createMockService, type MockService } from '../testing/mock-service.js';
import { type MockHttpServer, startServer } from '../testing/node-server.js';
import type { MockDelivery, MockDeliveryAttempt } from '../testing/webhook-schedule.js';
import { answerHostedPage } from './checkout-page.js';
import { DashboardFeed } from './dashboard/feed.js';
import { maskSecret } from './dashboard/page.js';
import { answerDashboard } from './dashboard/routes.js';
import { CliError, describeError, EXIT } from './exit-codes.js';
import type { GlobalOptions } from './global-options.js';
import { integerOption } from './integer-option.js';
import { answerMockEvent } from './mock-events.js';
import { printJson } from './output.js';
import { completeCredentials, readSeedFile, saveCredentials } from './seed-file.js';
import { shellWord } from './shell-word.js';

interface MockOptions {
  port: number;
  host: string;
  checkoutPort: number;
  forwardTo?: string;
  dropDeliveries?: number;
  seed?: string;
  settleAfter: number;
}

type AnyDelivery = WebhookDelivery<{ id: string; type: string; data: unknown }>;

/** Registers `mock` on the program. */
export function registerMock(program: Command): void {
  program
    .command('mock')
    .description("serve the testing kit's mock service over HTTP (prints base URL, keys and webhook secret)")
    .option('--port <n>', 'API port (0: any free port)', integerOption('--port', 0, 65535), 4010)
    .option('--host <address>', 'loopback address to bind', '127.0.0.1')
    .option('--checkout-port <n>', 'port of the hosted checkout pages (0: any free port)', integerOption('--checkout-port', 0, 65535), 0)
    .option('--forward-to <url>', 'post signed webhook deliveries to this local URL')
    .option('--drop-deliveries <rate>', 'share of events (0-1) whose every delivery attempt is lost, to test reconciliation', rateOption)
    .option(
      '--seed <file.json>',
      'resources to start with (a MockSeed; its "live" member seeds the live key) and the keys and secret to keep across restarts',
    )
    .option(
      '--settle-after <ms>',
      'delay before a direct charge settles and between payout steps',
      integerOption('--settle-after', 0, 3_600_000),
      1000,
    )
    .addHelpText(
      'after',
      `
Direct charges succeed after --settle-after ms (payment.succeeded); payouts go pending_approval →
approved → processing → completed, one step per delay (payout.* events). A checkout session's
checkout_url opens a hosted page with Pay, Cancel, and Fail with a
failure_reason of your choice (payment.failed). Ctrl-C stops the server (exit 0).

The base URL opens a live dashboard in your browser: every request, payment, checkout session,
payout, payment link and webhook delivery (each attempt, its status, the next one due), with
Succeed / Fail on a pending payment, Resend on a delivery, Drop the next N deliveries, and Advance
the clock to the next attempt due.

The keys and secret it prints are the mock's own test credentials, made fresh at each start, unless
--seed is given: then the seed file keeps them in its "credentials" member
({ "apiKey": "sk_test_…", "liveApiKey": "sk_live_…", "webhookSecret": "whsec_…" }). A seed file
without them gets them written in at the first start (the file is rewritten whole, its other
members unchanged), so every restart with that file prints the same export lines.`,
    )
    .action(async (options: MockOptions, command: Command) => {
      await runMock(options, command.optsWithGlobals<GlobalOptions>());
    });
}

/** Parses `--drop-deliveries`: a number from 0 to 1. */
function rateOption(value: string): number {
  const rate = Number(value);
  if (value.trim() === '' || !(rate >= 0 && rate <= 1))
    throw new CliError(`--drop-deliveries must be a number from 0 to 1, got ${JSON.stringify(value)}.`, EXIT.usage);
  return rate;
}

function checkForwardTo(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`--forward-to must be a URL such as http://127.0.0.1:3000/webhooks, got ${JSON.stringify(raw)}.`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !isLoopback(url.hostname)) {
    throw new CliError(`--forward-to must be an http(s) URL on 127.0.0.1, localhost or [::1], got ${url.protocol}//${url.host}.`);
  }
  return url.href;
}

async function listen(answer: (request: Request) => Promise<Response>, port: number, host: string, what: string): Promise<MockHttpServer> {
  try {
    return await startServer(answer, { port, host });
  } catch (error) {
    if (error instanceof MockServiceError) throw new CliError(error.message.replace(/^listen\(\): /, '--host: '));
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE')
      throw new CliError(`${what} port ${port} is already in use: choose another with ${what === 'API' ? '--port' : '--checkout-port'}.`);
    throw error;
  }
}

async function runMock(options: MockOptions, globals: GlobalOptions): Promise<void> {
  const forwardTo = checkForwardTo(options.forwardTo);
  if (options.dropDeliveries !== undefined && !forwardTo)
    throw new CliError('--drop-deliveries needs --forward-to: only forwarded deliveries can be lost.');
  const seed = options.seed === undefined ? undefined : await readSeedFile(options.seed);
  const { sandbox = {}, live } = seed ?? {};
  const kept = seed && completeCredentials(seed);

  // The servers come first: the mock's base URL and checkout origin are their addresses, so that
  // `links`, `checkout_url` and payment link `url` all point at this running process.
  let answerApi: (request: Request) => Promise<Response> = async () => new Response(null, { status: 503 });
  let answerPages: (request: Request) => Promise<Response> = async () => new Response(null, { status: 503 });
  const api = await listen((request) => answerApi(request), options.port, options.host, 'API');
  const pages = await listen((request) => answerPages(request), options.checkoutPort, options.host, 'checkout');

  let mock: MockService;
  try {
    mock = createMockService({
      // With a seed file, the keys and secret it keeps (or the ones made for it), so restarts print the same.
      ...(kept
        ? { merchants: [{ keys: [kept.credentials.apiKey, kept.credentials.liveApiKey] }], webhookSecret: kept.credentials.webhookSecret }
        : {}),
      baseUrl: api.url,
      checkoutBaseUrl: pages.url,
      // Payouts are checked against the live wallets only when the seed gives balances to check.
      checkPayoutBalance: Boolean(live?.wallets?.length),
      // The kit posts each delivery and retries it on the wall clock, as the service does; one line per attempt.
      ...(forwardTo ? { webhooks: { endpoint: forwardTo, dropRate: options.dropDeliveries ?? 0, onAttempt: printAttempt } } : {}),
    });
    if (Object.keys(sandbox).length > 0) mock.seed(sandbox, { apiKey: mock.apiKey });
    if (live) mock.seed(live, { apiKey: mock.liveApiKey });
  } catch (error) {
    await Promise.all([api.close(), pages.close()]);
    if (error instanceof MockServiceError) throw new CliError(`seed file ${options.seed}: ${error.message}`, EXIT.invalidInput);
    throw error;
  }
  if (seed && kept?.missing && options.seed !== undefined) {
    // Written before the banner, so the keys it prints are already in the file.
    const failed = await saveCredentials(options.seed, seed, kept.credentials);
    if (failed)
      process.stderr.write(`mock: cannot keep the keys in the seed file ${options.seed} (${failed}): they change at the next start.\n`);
  }
  const feed = new DashboardFeed(mock, forwardTo !== undefined);

  const timers = new Set<NodeJS.Timeout>();
  const later = (fn: () => Promise<void>) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn().catch((error: unknown) => process.stderr.write(`mock: ${describeError(error)}\n`));
    }, options.settleAfter);
    timers.add(timer);
  };

  // With --forward-to the kit delivers (printAttempt reports each attempt); without, each event is only listed.
  const forward = (delivery: AnyDelivery) => {
    feed.changed();
    if (forwardTo) return;
    const { id, type } = delivery.event;
    if (globals.json) printJson({ type: 'event', event: type, id, forwarded: false });
    else process.stdout.write(`${type} ${id} (not forwarded: no --forward-to)\n`);
  };
  function printAttempt(delivery: MockDelivery, attempt: MockDeliveryAttempt): void {
    feed.changed();
    const { id, type } = delivery.event;
    const ms = Math.round(attempt.durationMs);
    const retry = delivery.nextAttemptAt ? `, next attempt at ${delivery.nextAttemptAt.toISOString()}` : '';
    if (globals.json) {
      printJson({
        type: 'delivery',
        event: type,
        id,
        attempt: attempt.number,
        status: attempt.status ?? 0,
        ok: attempt.ok,
        ms,
        ...(attempt.lost ? { lost: true } : {}),
        ...(attempt.error && !attempt.lost ? { error: attempt.error } : {}),
        nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
      });
    } else if (attempt.lost)
      process.stdout.write(`${type} ${id} → lost on purpose (--drop-deliveries), attempt ${attempt.number}${retry}\n`);
    else if (attempt.status === null) process.stdout.write(`${type} ${id} → failed: ${attempt.error}, attempt ${attempt.number}${retry}\n`);
    else process.stdout.write(`${type} ${id} → ${attempt.status} (${ms} ms), attempt ${attempt.number}${retry}\n`);
  }

  // After a direct charge or a payout is created, time does what the processor and the reviewers
  // would: the charge succeeds, the payout moves one step per delay until a final state.
  const advancePayout = (id: string) =>
    later(async () => {
      const payout = mock.getPayout(id);
      if (!payout || ['completed', 'rejected', 'failed'].includes(String(payout.status))) return;
      forward(await mock.advancePayout(id));
      advancePayout(id);
    });
  const afterCreation = async (request: Request, response: Response) => {
    if (request.method !== 'POST' || response.status !== 201) return;
    const path = new URL(request.url).pathname.replace(/\/+$/, '');
    const body = (await response.clone().json()) as { data?: { uuid?: string; id?: string | number } };
    if (path.endsWith('/api/v1/payments') && body.data?.uuid) {
      const uuid = body.data.uuid;
      later(async () => {
        if (mock.getPayment(uuid)?.status === 'pending') forward(await mock.settlePayment(uuid));
      });
    } else if (path.endsWith('/api/v1/payouts') && body.data?.id !== undefined) {
      advancePayout(String(body.data.id));
    }
  };

  const dashboard = {
    mock,
    feed,
    onDelivery: forward,
    facts: {
      baseUrl: api.url,
      checkoutBaseUrl: pages.url,
      sandboxKey: maskSecret(mock.apiKey),
      liveKey: mock.liveApiKey ? maskSecret(mock.liveApiKey) : null,
      webhookSecret: maskSecret(mock.webhookSecret),
      forwardTo: forwardTo ?? null,
    },
  };
  answerApi = async (request) => {
    const page = await answerDashboard(dashboard, request);
    if (page) return page;
    const made = await answerMockEvent(mock, request);
    if (made) {
      feed.changed();
      return made;
    }
    const started = Date.now();
    const copy = request.clone();
    const response = await mock.fetch(request);
    // The dashboard's history must never cost the merchant's request its answer.
    const logged = feed.recordRequest(copy, response.clone(), started).catch((error: unknown) => {
      process.stderr.write(`mock: dashboard: ${describeError(error)}\n`);
    });
    await Promise.all([afterCreation(request, response), logged]);
    return response;
  };
  answerPages = async (request) => {
    const answer = await answerHostedPage(mock, request, forward);
    feed.changed();
    return answer;
  };

  // Ctrl-C (or SIGTERM) stops the servers; the handler is in place before the banner says "ready".
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  // The variables a merchant's app and the other commands read, as `export NAME=value` lines.
  const variables: Record<string, string> = {
    PAYMENTS_BASE_URL: api.url,
    PAYMENTS_API_KEY: mock.apiKey,
    ...(mock.liveApiKey ? { PAYMENTS_LIVE_API_KEY: mock.liveApiKey } : {}),
    PAYMENTS_WEBHOOK_SECRET: mock.webhookSecret,
  };
  const ready = {
    type: 'ready',
    baseUrl: api.url,
    sandboxKey: mock.apiKey,
    liveKey: mock.liveApiKey,
    webhookSecret: mock.webhookSecret,
    checkoutBaseUrl: pages.url,
    forwardTo: forwardTo ?? null,
    env: variables,
  };
  if (globals.json) printJson(ready);
  else {
    // Every line pastes into a POSIX shell: the comments are comments, the rest are exports.
    process.stdout.write(
      [
        `# Mock payments service on ${api.url}: ${seed ? `its own test credentials, kept in ${options.seed}.` : 'its own test credentials, made fresh at each start.'}`,
        `# Dashboard: open ${api.url}/ in your browser.`,
        '# Paste these lines into the shell that runs your app (the live key is for payouts):',
        ...Object.entries(variables).map(([name, value]) => `export ${name}=${shellWord(value)}`),
        `# Checkout pages: ${pages.url}/checkout/<reference>`,
        forwardTo ? `# Forwarding webhook deliveries to ${forwardTo}` : '# Webhook deliveries are not forwarded (--forward-to URL).',
        '# Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
  }

  await stopped;
  feed.close();
  for (const timer of timers) clearTimeout(timer);
  await Promise.all([api.close(), pages.close()]);
  process.exitCode = EXIT.ok;
}
