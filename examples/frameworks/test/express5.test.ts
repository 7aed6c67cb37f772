import { testRecipe } from './support.ts';

testRecipe({
  dir: 'express5',
  args: ['server.ts'],
  path: '/webhooks/payments',
  mistakePath: '/webhooks/behind-json-parser',
  mistakeMessage: /already parsed.*before `app\.use\(express\.json\(\)\)`.*express\.raw\(\{ type: 'application\/json' \}\)/,
});
