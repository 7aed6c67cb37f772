// The testing kit with msw installed: its handlers go into setupServer and server.use.
import { setupServer } from 'msw/node';
import { createMockService } from 'payments-sdk/testing';

const mock = createMockService();
const server = setupServer(...mock.handlers);
server.use(...mock.createHandlers(await import('msw')));
server.listen();
server.close();
