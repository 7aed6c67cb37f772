import { testRecipe } from './support.ts';

testRecipe({
  dir: 'fastify',
  args: ['server.ts'],
  path: '/webhooks/payments',
  mistakePath: '/webhooks/with-json-parser',
  mistakeMessage: /already parsed.*Fastify's JSON parser.*addContentTypeParser\('application\/json', \{ parseAs: 'buffer' \}/,
});
