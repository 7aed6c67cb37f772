/**
 * Gives the shared declaration chunks of dist/ names that say what they hold. tsup bundles the
 * `.d.ts` of the five entries with rollup, which puts types shared by several entries into chunks
 * named `<last module>-<hash>.d.ts` (`payout-CfnqACDM.d.ts` holding `Payment`), with no option to
 * name them. Go-to-definition lands in those files, so each one is renamed here and every import of
 * it rewritten.
 *
 *   npm run build       (tsup, then this file)
 *
 * A chunk this script has no name for fails the build: add it to NAMES, after a look at what it holds.
 */
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));

/** Rollup's chunk name (its last module) → the file name, by what the chunk declares. */
const NAMES: Record<string, string> = {
  // src/core/errors.ts: PaymentsError and its subclasses, shared by every entry.
  errors: 'errors',
  // src/schemas/primitives.ts, list-params.ts, payment.ts, payout.ts: the Payment and Payout types, their schemas and the list types.
  payout: 'payment-and-payout',
  // The same chunk when rollup's last module is payment.ts (the order changes with who imports the schemas).
  payment: 'payment-and-payout',
  // src/schemas/checkout-session.ts, payment-link.ts, wallet.ts: their types and schemas, shared by the main and schemas entries.
  wallet: 'checkout-link-and-wallet',
  // src/webhooks/events.ts, sign.ts, verify.ts: the webhook event types and their verification, shared by the main entry (client.webhooks.verify) and the webhooks entry.
  verify: 'webhook-events',
  // src/core/telemetry.ts: the Telemetry hooks, shared by the main, webhooks and opentelemetry entries.
  telemetry: 'telemetry',
  // src/stores/store.ts: the Store contract and its records, shared by the stores entry and the entries that take a store.
  store: 'store',
};

/** Chunks whose rollup name another chunk also has, told apart by a name only they declare. */
const BY_CONTENT: Array<{ name: string; declares: string; target: string }> = [
  // src/stores/errors.ts: StoreTimeoutError and StoreFullError, shared by the stores entry and the main
  // entry (bulk payouts' default memoryStore).
  { name: 'errors', declares: 'declare class StoreTimeoutError', target: 'store-errors' },
  // src/schemas/list-envelope.ts: the list envelope, its links and counters, shared by the main and schemas entries.
  { name: 'index', declares: 'declare function listEnvelope', target: 'list-pages' },
];

const CHUNK = /^(?<name>[a-z-]+)-(?<hash>[A-Za-z0-9_-]{8})\.d\.(?<ext>c?ts)$/;

const files = readdirSync(dist).filter((file) => /\.d\.c?ts$/.test(file));
const renames = new Map<string, string>();
const unknown: string[] = [];
for (const file of files) {
  const match = CHUNK.exec(file);
  if (!match?.groups) continue;
  const { name, ext } = match.groups as { name: string; ext: string };
  const special = BY_CONTENT.find((c) => c.name === name && readFileSync(join(dist, file), 'utf8').includes(c.declares));
  const target = special?.target ?? NAMES[name];
  if (target === undefined) unknown.push(file);
  else renames.set(file, `${target}.d.${ext}`);
}
if (unknown.length > 0) {
  console.error(`name-declarations: no name for ${unknown.join(', ')}: add its chunk name to NAMES in scripts/name-declarations.ts.`);
  process.exit(1);
}
const targets = [...renames.values()];
const clash = targets.find((target, index) => targets.indexOf(target) !== index || (files.includes(target) && !renames.has(target)));
if (clash) {
  console.error(`name-declarations: two declaration files would be named ${clash}.`);
  process.exit(1);
}

// `./payout-CfnqACDM.js` (imports of .d.ts) and `./payout-CfnqACDM.cjs` (of .d.cts) → the new stem.
const stems = new Map([...renames].map(([from, to]) => [from.replace(/\.d\.c?ts$/, ''), to.replace(/\.d\.c?ts$/, '')]));
for (const file of files) {
  const path = join(dist, file);
  const text = readFileSync(path, 'utf8');
  const rewritten = text.replace(/(['"])\.\/([^'"]+?)\.(c?js)\1/g, (whole, quote: string, stem: string, ext: string) => {
    const to = stems.get(stem);
    return to === undefined ? whole : `${quote}./${to}.${ext}${quote}`;
  });
  if (rewritten !== text) writeFileSync(path, rewritten);
}
for (const [from, to] of renames) renameSync(join(dist, from), join(dist, to));
for (const [from, to] of renames) console.error(`name-declarations: ${from} → ${to}`);
