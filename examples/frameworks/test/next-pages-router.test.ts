import { testRecipe } from './support.ts';

// The app is built by `npm run test:frameworks` (next build) before this runs.
testRecipe({
  dir: 'next-pages-router',
  args: ['../node_modules/next/dist/bin/next', 'start', '--port', '0', '--hostname', '127.0.0.1'],
  path: '/api/webhooks',
  mistakePath: '/api/webhooks-body-parser-on',
  mistakeMessage: /already parsed.*Next\.js parsed it.*`const config = \{ api: \{ bodyParser: false \} \}`/,
});
