import { testRecipe } from './support.ts';

testRecipe({
  dir: 'koa',
  args: ['server.ts'],
  path: '/webhooks/payments',
  mistakePath: '/webhooks/behind-body-parser',
  otherPaths: ['/webhooks/payments-after-body-parser'],
  mistakeMessage: /already read.*In Koa, a body parser.*ctx\.request\.rawBody/,
});
