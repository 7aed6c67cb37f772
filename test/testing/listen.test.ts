/** `mock.listen()` when the system refuses the socket: a rejected promise that says why. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMockService, MockServiceError } from 'payments-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let taken: Server;
let port = 0;
beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  port = (taken.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

describe('mock.listen() refused', () => {
  const mock = createMockService();

  it('rejects when the port is already taken, and the mock still listens elsewhere afterwards', async () => {
    const refused = mock.listen({ port });
    await expect(refused).rejects.toBeInstanceOf(MockServiceError);
    await expect(refused).rejects.toThrow(
      `listen(): cannot listen on 127.0.0.1:${port}: the port is already in use (pass port: 0 for a free one).`,
    );
    const server = await mock.listen();
    expect(server.port).not.toBe(port);
    await server.close();
  });

  it('rejects a port out of range, and a host that is not loopback', async () => {
    await expect(mock.listen({ port: 70_000 })).rejects.toThrow(/^listen\(\): cannot listen on 127\.0\.0\.1:70000/);
    await expect(mock.listen({ host: '192.0.2.1' })).rejects.toThrow(/loopback/);
  });
});
