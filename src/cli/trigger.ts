/**
 * `payments-sdk trigger <event>`: one signed webhook delivery with realistic data, sent to a local
 * endpoint. The event comes from the testing kit's model (a real direct charge or payout, moved to
 * the state the event announces) and is signed by the kit's delivery code with the merchant's secret.
 */
import type { Command } from 'commander';
import { PaymentsClient } from '../client.js';
import { MOCK_PAYOUT_STATUSES } from '../testing/engine/model.js';
import { MockServiceError } from '../testing/mock-errors.js';
import { createMockService, type MockService } from '../testing/mock-service.js';
import { CliError, EXIT } from './exit-codes.js';
import type { GlobalOptions } from './global-options.js';
import { printJson } from './output.js';

/** Event types `trigger` can send. The payout names are the testing kit's own. */
export const TRIGGER_EVENTS: readonly string[] = [
  'payment.succeeded',
  'payment.failed',
  ...MOCK_PAYOUT_STATUSES.filter((s) => s !== 'pending_approval').map((s) => `payout.${s}`),
];

/** The payout steps from `pending_approval` to each state the mock knows. */
const PAYOUT_PATHS: Record<string, Array<'approved' | 'processing' | 'completed' | 'rejected' | 'failed'>> = {
  approved: ['approved'],
  rejected: ['rejected'],
  processing: ['approved', 'processing'],
  completed: ['approved', 'processing', 'completed'],
  failed: ['approved', 'processing', 'failed'],
};

interface TriggerOptions {
  forwardTo: string;
  secret?: string;
}

/** Registers `trigger` on the program. */
export function registerTrigger(program: Command): void {
  program
    .command('trigger')
    .description('send one signed webhook delivery with realistic data to a local endpoint')
    .argument('<event>', `event type: ${TRIGGER_EVENTS.join(', ')}`)
    .requiredOption('--forward-to <url>', 'your webhook endpoint (127.0.0.1, localhost or [::1])')
    .option('--secret <whsec>', 'signing secret (default: PAYMENTS_WEBHOOK_SECRET)')
    .addHelpText('after', '\nExits 0 when the endpoint answers 2xx, 1 otherwise, 4 when it cannot be reached.')
    .action(async (event: string, options: TriggerOptions, command: Command) => {
      await runTrigger(event, options, command.optsWithGlobals<GlobalOptions>());
    });
}

async function eventDelivery(mock: MockService, event: string) {
  if (event.startsWith('payment.')) {
    const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
    const payment = await client.payments.create({
      amount: 15_000,
      currency: 'XOF',
      country: 'SEN',
      provider: 'orange',
      phone: '221771234567',
      payer_name: 'Awa Diop',
      description: 'Order #1042',
    });
    return event === 'payment.succeeded' ? mock.settlePayment(payment.uuid) : mock.failPayment(payment.uuid, 'insufficient_funds');
  }
  const client = new PaymentsClient({ apiKey: mock.liveApiKey as string, baseUrl: mock.baseUrl, fetch: mock.fetch, maxRetries: 0 });
  const payout = await client.payouts.create({
    amount: 250_000,
    currency: 'XOF',
    destination: { type: 'mobile_money', country: 'SEN', provider: 'wave', phone: '221781234567' },
  });
  const steps = PAYOUT_PATHS[event.slice('payout.'.length)] ?? [];
  let last: Awaited<ReturnType<MockService['advancePayout']>> | undefined;
  for (const to of steps) last = await mock.advancePayout(String(payout.id), { to });
  return last as NonNullable<typeof last>;
}

async function runTrigger(event: string, options: TriggerOptions, globals: GlobalOptions): Promise<void> {
  if (!TRIGGER_EVENTS.includes(event)) {
    throw new CliError(`unknown event ${JSON.stringify(event)}: choose one of ${TRIGGER_EVENTS.join(', ')}.`);
  }
  const secret = options.secret ?? process.env.PAYMENTS_WEBHOOK_SECRET;
  if (!secret) throw new CliError('missing the webhook signing secret: set PAYMENTS_WEBHOOK_SECRET or pass --secret.');
  // The kit's model makes the data and signs it; nothing is stored, and the mock's own keys stay in it.
  const mock = createMockService({ webhookSecret: secret, checkPayoutBalance: false });
  const delivery = await eventDelivery(mock, event);
  let response: Response;
  try {
    response = await mock.deliver(delivery, options.forwardTo);
  } catch (error) {
    if (error instanceof MockServiceError) throw new CliError(`--forward-to: ${error.message.replace(/^deliver\(\): /, '')}`);
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    throw new CliError(`could not reach ${options.forwardTo}${cause}`, EXIT.service);
  }
  const body = await response.text();
  const { id, type } = delivery.event;
  if (globals.json) printJson({ event: type, id, status: response.status, ok: response.ok, body });
  else {
    process.stdout.write(`${type} ${id} → ${response.status}${response.statusText ? ` ${response.statusText}` : ''}\n`);
    if (body) process.stdout.write(`${body.length > 4000 ? `${body.slice(0, 4000)}…` : body}\n`);
  }
  process.exitCode = response.ok ? EXIT.ok : EXIT.failed;
}
