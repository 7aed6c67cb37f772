import { testRecipe } from './support.ts';

// The app is compiled by tsc into nest/dist (Nest's decorators need it): `npm run test:frameworks`
// builds it before the tests.
testRecipe({
  dir: 'nest',
  args: ['dist/nest/main.js'],
  path: '/webhooks/payments',
  mistakePath: '/webhooks/behind-json-parser',
  mistakeMessage: /already parsed.*NestFactory\.create\(AppModule, \{ rawBody: true \}\)/,
});
