/**
 * Walks every payment with a given status since a date, and prints a running total by currency.
 *
 *   PAYMENTS_API_KEY=sk_test_… PAYMENTS_BASE_URL=https://pay.example.com \
 *     node examples/list-payments.ts [from=YYYY-MM-DD] [status]
 *
 * `from` defaults to 30 days ago and `status` to `succeeded`. The `for await` loop reads one page
 * at a time (100 payments per request), so memory stays flat however many payments there are.
 */
import { formatAmount, type PaymentStatus, PaymentsClient, PaymentsError } from 'payments-sdk';

interface Total {
  count: number;
  gross: number;
  net: number;
}

const DAY_MS = 86_400_000;

async function main(): Promise<void> {
  const client = new PaymentsClient(); // reads PAYMENTS_API_KEY and PAYMENTS_BASE_URL
  const from = (process.argv[2] as string | undefined) ?? new Date(Date.now() - 30 * DAY_MS); // 'YYYY-MM-DD' or a Date (sent as its UTC date)
  const status: PaymentStatus = process.argv[3] ?? 'succeeded';

  // Totals are grouped by the currency each payment was charged in: a direct charge asked in one
  // currency may have been converted to the operator's (docs/service.md "Endpoints"), and the payment
  // reports what was actually charged. Amounts are integers in minor units: sum them as they are.
  const totals = new Map<string, Total>();
  let seen = 0;
  for await (const payment of client.payments.list({ status, from, per_page: 100 })) {
    const total = totals.get(payment.currency) ?? { count: 0, gross: 0, net: 0 };
    total.count += 1;
    total.gross += payment.gross_amount;
    total.net += payment.net_amount_to_merchant;
    totals.set(payment.currency, total);
    seen += 1;
    if (seen % 500 === 0) console.log(`… ${seen} payments so far`);
  }

  if (totals.size === 0) {
    console.log(`No ${status} payment since ${typeof from === 'string' ? from : from.toISOString().slice(0, 10)}.`);
    return;
  }
  for (const [currency, total] of [...totals].sort(([a], [b]) => a.localeCompare(b))) {
    console.log(
      `${currency}: ${total.count} ${status} payment(s), gross ${formatAmount(total.gross, currency)}, net to you ${formatAmount(total.net, currency)}`,
    );
  }
}

try {
  await main();
} catch (error) {
  // Every error of the SDK is a PaymentsError; its message says what to fix (a bad date, a missing key…).
  if (!(error instanceof PaymentsError)) throw error;
  console.error(`${error.name}: ${error.message}`);
  process.exitCode = 1;
}
