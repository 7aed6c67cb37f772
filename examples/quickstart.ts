/**
 * Quickstart: `npm run example`.
 *
 * With no configuration it runs against the built-in mock service (`payments-sdk/testing`): it
 * creates a checkout session and a direct mobile-money charge, settles the charge, receives and
 * verifies the signed webhook, and pages through payments.
 *
 * With PAYMENTS_API_KEY and PAYMENTS_BASE_URL set it runs against that service instead. A real
 * payment is settled by the customer on their phone, so that run shows what it can: the session,
 * the charge (sandbox keys only: a live key would charge a real phone), and the payments list.
 */
import { formatAmount, type Payment, PaymentsClient } from 'payments-sdk';
import { createMockService } from 'payments-sdk/testing';
import { verifyWebhook } from 'payments-sdk/webhooks';

const real = Boolean(process.env.PAYMENTS_API_KEY && process.env.PAYMENTS_BASE_URL);
const mock = real ? undefined : createMockService();
const client = mock ? new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch }) : new PaymentsClient(); // PAYMENTS_API_KEY, PAYMENTS_BASE_URL

const money = (amount: number, currency: string) => formatAmount(amount, currency, 'fr-SN');
const line = (payment: Payment) =>
  `${payment.uuid}  ${payment.status.padEnd(9)}  ${money(payment.gross_amount, payment.currency)}  ` +
  `(net ${money(payment.net_amount_to_merchant, payment.currency)})${payment.checkout_session ? `  session ${payment.checkout_session}` : ''}`;

async function main(): Promise<void> {
  console.log(
    mock
      ? `Running against the built-in mock service (${mock.baseUrl}). Set PAYMENTS_API_KEY and PAYMENTS_BASE_URL to use a real one.`
      : `Running against ${client.baseUrl} with a ${client.mode} key.`,
  );

  // 1. A hosted checkout session: redirect the customer to checkout_url.
  const session = await client.checkoutSessions.create({
    amount: 5000, // minor units: XOF has no decimals
    currency: 'XOF',
    description: 'Order #1042',
    success_url: 'https://shop.example/thanks',
    metadata: { order_id: '1042' },
  });
  console.log(`\n1. Checkout session ${session.reference} (${session.status}): send the customer to ${session.checkout_url}`);

  // 2. A direct mobile-money charge: the customer confirms on their phone.
  let charge: Payment | undefined;
  if (client.mode === 'live') {
    console.log('\n2. Direct charge skipped: this is a live key, and the example would charge a real phone.');
  } else {
    charge = await client.payments.create({ amount: 2500, currency: 'XOF', country: 'SEN', provider: 'orange', phone: '221771234567' });
    console.log(`\n2. Direct charge created:\n   ${line(charge)}`);
  }

  // 3. The payment settles and the service sends a signed webhook.
  if (mock && charge) {
    const delivery = await mock.settlePayment(charge.uuid);
    // What your endpoint does with the raw body and the headers it received:
    const event = await verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: mock.webhookSecret });
    console.log(`\n3. Webhook received and verified (X-Service-Signature ${delivery.headers['X-Service-Signature'].slice(0, 12)}…):`);
    console.log(`   ${event.type} ${event.id}`);
    if (event.type === 'payment.succeeded') console.log(`   ${line(event.data)}`);

    // The customer also pays the checkout session on the hosted page.
    const paid = await mock.paySession(session.reference);
    const sessionEvent = await verifyWebhook({ payload: paid.body, headers: paid.headers, secret: mock.webhookSecret });
    console.log(`   ${sessionEvent.type} for checkout session ${session.reference}`);
  } else {
    console.log("\n3. Settling happens on the customer's phone: your webhook endpoint receives payment.succeeded or payment.failed.");
    if (charge) console.log(`   Current status: ${(await client.payments.retrieve(charge.uuid)).status}`);
  }

  // 4. Page through payments, most recent first (links.next is followed until it is null).
  console.log('\n4. Payments, one page at a time:');
  let pages = 0;
  for await (const page of client.payments.list({ per_page: mock ? 1 : 20 }).pages()) {
    pages += 1;
    console.log(`   page ${page.meta.current_page}/${page.meta.last_page} (${page.meta.total} in all)`);
    for (const payment of page.data) console.log(`     ${line(payment)}`);
    if (pages >= 3) {
      if (page.hasNextPage()) console.log('     … (stopping after 3 pages)');
      break;
    }
  }

  // 5. Balances.
  const wallets = await client.wallets.list();
  console.log('\n5. Wallets:');
  if (wallets.length === 0) console.log('   (none yet)');
  for (const wallet of wallets) {
    const { currency, balance } = wallet as { currency?: unknown; balance?: unknown };
    console.log(`   ${typeof currency === 'string' && typeof balance === 'number' ? money(balance, currency) : JSON.stringify(wallet)}`);
  }
  if (mock) console.log(`\nDone: ${mock.requests.length} requests to the mock service, ${mock.deliveries.length} webhooks signed.`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
