/**
 * The `--seed` file of `payments-sdk mock`: a `MockSeed` for the sandbox key, an optional `live`
 * member for the live key, and a `credentials` member that keeps the mock's keys and webhook secret
 * from one start to the next, so that the `export` lines (and the merchant's `.env`) stay valid.
 *
 * When the file has no `credentials` (or only some), the mock makes the missing ones and writes them
 * back into the file, whole or not at all (a temporary file beside it, renamed over it). Resources
 * can be edited freely afterwards: the credentials stay as long as the `credentials` member does.
 */
import { readFile } from 'node:fs/promises';
import { isRecord } from '../internal/is-record.js';
import { jsonSyntaxReason } from '../internal/json.js';
import { randomHex } from '../testing/ids.js';
import type { MockSeed } from '../testing/options.js';
import { CliError, describeError, EXIT } from './exit-codes.js';
import { fileOutput } from './output.js';

/** The keys and secret a seed file keeps. */
export interface SeedCredentials {
  /** Sandbox key (`sk_test_…`), printed as `PAYMENTS_API_KEY`. */
  apiKey?: string;
  /** Live key (`sk_live_…`), printed as `PAYMENTS_LIVE_API_KEY`. */
  liveApiKey?: string;
  /** Webhook secret (`whsec_…`), printed as `PAYMENTS_WEBHOOK_SECRET`. */
  webhookSecret?: string;
}

/** A seed file as read: the resources, and the credentials it keeps. */
export interface SeedFile {
  sandbox: MockSeed;
  live?: MockSeed;
  credentials: SeedCredentials;
  /** The whole parsed file, to write back with credentials added. */
  raw: Record<string, unknown>;
}

const CREDENTIALS = ['apiKey', 'liveApiKey', 'webhookSecret'] as const;
const PREFIX: Record<(typeof CREDENTIALS)[number], RegExp> = {
  apiKey: /^sk_(test|sandbox)_\S+$/,
  liveApiKey: /^sk_live_\S+$/,
  webhookSecret: /^whsec_\S+$/,
};
const EXAMPLE: Record<(typeof CREDENTIALS)[number], string> = { apiKey: 'sk_test_…', liveApiKey: 'sk_live_…', webhookSecret: 'whsec_…' };

/** Reads and checks a seed file; a bad one is a one-line {@link CliError} (exit 3) that never quotes its content. */
export async function readSeedFile(path: string): Promise<SeedFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read the seed file ${path}: ${describeError(error)}`, EXIT.invalidInput);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`the seed file ${path} is not a JSON seed: ${jsonSyntaxReason(error)}`, EXIT.invalidInput);
  }
  if (!isRecord(parsed)) throw new CliError(`the seed file ${path} is not a JSON seed: the top level must be an object`, EXIT.invalidInput);
  const { live, credentials = {}, ...sandbox } = parsed as MockSeed & { live?: MockSeed; credentials?: unknown };
  if (!isRecord(credentials))
    throw new CliError(`the seed file ${path}: "credentials" must be an object { apiKey, liveApiKey, webhookSecret }`, EXIT.invalidInput);
  for (const name of CREDENTIALS) {
    const value = credentials[name];
    // The reason, never the value: it is a secret.
    if (value !== undefined && (typeof value !== 'string' || !PREFIX[name].test(value)))
      throw new CliError(`the seed file ${path}: credentials.${name} must look like ${EXAMPLE[name]}`, EXIT.invalidInput);
  }
  return { sandbox, ...(live === undefined ? {} : { live }), credentials: credentials as SeedCredentials, raw: parsed };
}

/**
 * The file's credentials, with fresh ones (made as the testing kit makes its own) for those it
 * lacks; `missing` says whether any was made, so that the file needs writing back.
 */
export function completeCredentials(seed: SeedFile): { credentials: Required<SeedCredentials>; missing: boolean } {
  const given = seed.credentials;
  return {
    credentials: {
      apiKey: given.apiKey ?? `sk_test_mock_${randomHex(12)}`,
      liveApiKey: given.liveApiKey ?? `sk_live_mock_${randomHex(12)}`,
      webhookSecret: given.webhookSecret ?? `whsec_mock_${randomHex(24)}`,
    },
    missing: CREDENTIALS.some((name) => given[name] === undefined),
  };
}

/**
 * Writes the file back with `credentials` (its other members as they were, JSON with 2-space
 * indentation), whole or not at all. Returns the reason when it cannot (a read-only file, say).
 */
export async function saveCredentials(path: string, seed: SeedFile, credentials: Required<SeedCredentials>): Promise<string | undefined> {
  try {
    const out = fileOutput(path);
    try {
      await out.write(`${JSON.stringify({ ...seed.raw, credentials }, null, 2)}\n`);
      out.close();
    } catch (error) {
      out.discard();
      throw error;
    }
    return undefined;
  } catch (error) {
    return describeError(error);
  }
}
