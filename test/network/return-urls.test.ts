/**
 * A return URL with a space around it, or a tab or line break in it, is refused before anything is
 * sent: the URL parser drops those characters without a word, so the URL the SDK checked would not
 * be the one the service stores, and the service refuses such a URL anyway. Against a real server
 * on 127.0.0.1, which counts what reaches it.
 */
import { InvalidParamsError, PaymentsClient } from 'payments-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { caught } from '../helpers/caught.js';
import { checkoutSession } from '../helpers/fixtures.js';
import { startServer, type TestServer } from './server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function sessionServer(): Promise<TestServer> {
  return startServer((x) => x.server.json(x.res, 201, { data: checkoutSession() }));
}

function clientFor(s: TestServer) {
  return new PaymentsClient({ apiKey: 'sk_test_ReturnUrls', baseUrl: s.origin, maxRetries: 0 });
}

describe('checkoutSessions.create: success_url and cancel_url are sent exactly as checked', () => {
  it.each([
    ['a leading space', ' https://shop.example/success'],
    ['a trailing space', 'https://shop.example/success '],
    ['a leading tab', '\thttps://shop.example/success'],
    ['a trailing line break', 'https://shop.example/success\n'],
    ['a line break inside', 'https://shop.exa\nmple/success'],
  ])('success_url with %s: an InvalidParamsError naming it, nothing sent', async (_, url) => {
    server = await sessionServer();
    const error = await caught(() =>
      clientFor(server as TestServer).checkoutSessions.create({ amount: 5000, currency: 'XOF', success_url: url }),
    );
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as InvalidParamsError).issues.map((issue) => issue.path.join('.'))).toEqual(['success_url']);
    expect((error as Error).message).toContain('success_url');
    expect(server.requests).toHaveLength(0);
  });

  it('both bad URLs are named in one error, and nothing is sent', async () => {
    server = await sessionServer();
    const error = await caught(() =>
      clientFor(server as TestServer).checkoutSessions.create({
        amount: 5000,
        currency: 'XOF',
        success_url: ' https://shop.example/success',
        cancel_url: 'https://shop.example/cancel ',
      }),
    );
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as InvalidParamsError).issues.map((issue) => issue.path.join('.')).sort()).toEqual(['cancel_url', 'success_url']);
    expect(server.requests).toHaveLength(0);
  });

  it('the same URLs without the spaces are sent, unchanged', async () => {
    server = await sessionServer();
    await clientFor(server).checkoutSessions.create({
      amount: 5000,
      currency: 'XOF',
      success_url: 'https://shop.example/success',
      cancel_url: 'http://localhost:3000/cancel',
    });
    expect(server.requests).toHaveLength(1);
    expect(JSON.parse(server.requests[0]?.body ?? '{}')).toMatchObject({
      success_url: 'https://shop.example/success',
      cancel_url: 'http://localhost:3000/cancel',
    });
  });
});
