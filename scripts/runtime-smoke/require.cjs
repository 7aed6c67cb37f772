// The `require` half of the dual package (Node): the same smoke as smoke.ts, fed the CommonJS build.
// The package is loaded by name, from the consumer directory's node_modules, as a merchant's CJS app would.
const sdk = require('payments-sdk');
const webhooks = require('payments-sdk/webhooks');
const schemas = require('payments-sdk/schemas');

import('./smoke.ts').then(({ cli }) => cli(sdk, webhooks, schemas));
