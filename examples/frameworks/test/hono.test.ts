import { testRecipe } from './support.ts';

testRecipe({
  dir: 'hono',
  args: ['server.ts'],
  path: '/webhooks/payments',
  mistakePath: '/webhooks/after-json',
  otherPaths: ['/webhooks/payments-manual'],
  mistakeMessage: /already read \(request\.json\(\).*request\.clone\(\)/,
});
