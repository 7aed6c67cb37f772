/**
 * The debug log, against a real server on 127.0.0.1: each request and answer body is logged with
 * secrets and customers' personal data masked (by field name, and e-mails and long digit runs in any
 * text); a refusal is logged by its status, error class and field names, never by the service's
 * message, which may quote the customer. A logger that throws never changes a call's outcome.
 */
import { type Logger, PaymentsClient, UnprocessableEntityError } from 'payments-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chargeParams, payment } from '../helpers/fixtures.js';
import { recordingLogger } from '../helpers/logger.js';
import { expectOutcomesUnchanged } from '../helpers/outcomes.js';
import { answerCreation, startServer, type TestServer } from '../network/server.js';

const KEY = 'sk_test_LoggingKeyThatMustNotShow';
const PHONE = '221771234567';
const EMAIL = 'awa.diop@example.sn';
const NAME = 'Awa Diop';

let server: TestServer;
beforeAll(async () => {
  server = await startServer((x) => {
    const { req, res } = x;
    if (req.url === '/api/v1/checkout-sessions') {
      // The service's 422 quotes what the customer typed.
      return server.json(res, 422, {
        message: `Le numéro ${PHONE} de ${NAME} (${EMAIL}) est invalide.`,
        errors: { payer_phone: [`${PHONE} n'est pas un numéro valide.`], 'customer.email': [`${EMAIL} est refusé.`] },
      });
    }
    if (req.method === 'POST') return answerCreation(x);
    return server.json(res, 200, {
      data: {
        ...payment({ uuid: '9b2f8a1e-3c4d-4e5f-8a9b-0c1d2e3f4a5b' }),
        payer_name: NAME,
        payer_email: EMAIL,
        metadata: { note: `Rappeler le +221 77 123 45 67 ou écrire à ${EMAIL}`, order: 'A-1042', token: 'tok_secret_value' },
      },
    });
  });
});
afterAll(() => server.close());

const charge = { ...chargeParams, phone: PHONE, description: `Commande 1042 pour ${EMAIL}` };

function expectNoPersonalData(text: string) {
  for (const secret of [PHONE, EMAIL, 'awa.diop', NAME, '77 123 45 67', KEY, 'tok_secret_value']) expect(text).not.toContain(secret);
}

describe('logLevel debug: bodies, masked', () => {
  it('logs the request and answer bodies with phone numbers, e-mails, names and secrets masked, identifiers kept', async () => {
    const { lines, logger, text } = recordingLogger();
    const client = new PaymentsClient({ apiKey: KEY, baseUrl: server.origin, logger, logLevel: 'debug' });
    await client.payments.create(charge);
    await client.payments.retrieve('9b2f8a1e-3c4d-4e5f-8a9b-0c1d2e3f4a5b');
    expectNoPersonalData(text());
    const request = lines.find((l) => String(l.args[0]).startsWith('payments-sdk: → POST'));
    expect(request?.args[1]).toMatchObject({
      headers: { authorization: '[redacted]' },
      body: { amount: 5000, currency: 'XOF', phone: '[masked]', description: 'Commande 1042 pour [email]' },
    });
    const answer = lines.find((l) => String(l.args[0]).startsWith('payments-sdk: ← 200 GET'));
    expect(answer?.args[1]).toMatchObject({
      body: {
        data: {
          uuid: '9b2f8a1e-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
          payer_name: '[masked]',
          payer_email: '[masked]',
          created_at: expect.stringMatching(/^\d{4}-/),
          metadata: { note: 'Rappeler le [number] ou écrire à [email]', order: 'A-1042', token: '[redacted]' },
        },
      },
    });
  });
});

describe('a refusal whose message quotes the customer', () => {
  it.each(['debug', 'warn'] as const)('at %s, is logged by status, class and field names, never by its message', async (logLevel) => {
    const { lines, logger, text } = recordingLogger();
    const client = new PaymentsClient({ apiKey: KEY, baseUrl: server.origin, logger, logLevel });
    const error = await client.checkoutSessions.create({ amount: 5000, currency: 'XOF' }).catch((e: unknown) => e);
    // The error the merchant gets keeps the service's message: only the log leaves it out.
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect((error as Error).message).toContain(PHONE);
    expectNoPersonalData(text());
    expect(text()).not.toContain('est invalide');
    const warning = lines.find((l) => l.level === 'warn');
    expect(warning?.args[0]).toBe(
      `payments-sdk: POST ${server.origin}/api/v1/checkout-sessions failed: UnprocessableEntityError (422) (fields: payer_phone, customer.email)`,
    );
  });
});

describe('a logger that throws', () => {
  it('changes neither the result of a call nor its error', async () => {
    const sinkClosed = () => {
      throw new Error('log sink closed');
    };
    const throwing: Logger = { error: sinkClosed, warn: sinkClosed, info: sinkClosed, debug: sinkClosed };
    const client = new PaymentsClient({ apiKey: KEY, baseUrl: server.origin, logger: throwing, logLevel: 'debug' });
    await expectOutcomesUnchanged(client, charge, 'order-1');
  });
});
