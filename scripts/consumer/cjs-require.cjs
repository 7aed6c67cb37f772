// The CommonJS build at run time: every entry required by name from the installed tarball.
const assert = require('node:assert');
const sdk = require('payments-sdk');
const { PaymentSchema } = require('payments-sdk/schemas');
const { createMockService } = require('payments-sdk/testing');
const { verifyWebhook } = require('payments-sdk/webhooks');
const z = require('zod/mini');

assert.strictEqual(typeof sdk.PaymentsClient, 'function');
assert.strictEqual(sdk.PaymentSchema, undefined, 'the schemas are not in the main entry');
assert.throws(() => sdk.toMinorUnits(5000, 'CFA'), /not an ISO 4217 currency/);

(async () => {
  const mock = createMockService();
  const delivery = await mock.createDelivery({ type: 'payment.succeeded', data: { uuid: 'pay_1' } });
  const event = await verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: mock.webhookSecret });
  z.parse(PaymentSchema, event.data);
  assert.strictEqual(event.data.uuid, 'pay_1');
  // The SDK's schemas carry their own zod; the merchant's zod (this project's) composes with them.
  const order = z.object({ reference: z.string(), payment: PaymentSchema });
  assert.strictEqual(z.parse(order, { reference: 'A-1', payment: event.data }).payment.uuid, 'pay_1');
  assert.ok(PaymentSchema instanceof z.ZodMiniObject);
  const bad = z.safeParse(order, { reference: 'A-1', payment: { ...event.data, gross_amount: 'lots' } });
  assert.deepStrictEqual(
    bad.error?.issues.map((issue) => issue.path),
    [['payment', 'gross_amount']],
  );
  console.log('cjs-require: ok');
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
