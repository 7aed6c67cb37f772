/**
 * The SDK client a command talks to the service with: the API key and service URL come from flags
 * or, by default, from the environment (`PAYMENTS_API_KEY`, `PAYMENTS_BASE_URL`). A missing or bad
 * value is a usage error, so the command stops before any request leaves.
 */
import { PaymentsClient } from '../client.js';
import { PaymentsError } from '../core/errors.js';
import { CliError, EXIT } from './exit-codes.js';

/** Flags that give the client's connection (the environment is the default). */
export interface ClientFlags {
  apiKey?: string;
  baseUrl?: string;
}

/**
 * The SDK client of a command: the key from `--api-key` or `PAYMENTS_API_KEY`, the service root
 * from `--base-url` or `PAYMENTS_BASE_URL`. A missing one is a usage error naming both ways.
 */
export function clientFrom(flags: ClientFlags): PaymentsClient {
  const apiKey = flags.apiKey ?? process.env.PAYMENTS_API_KEY;
  const baseUrl = flags.baseUrl ?? process.env.PAYMENTS_BASE_URL;
  const missing = [
    apiKey ? undefined : 'an API key (PAYMENTS_API_KEY or --api-key)',
    baseUrl ? undefined : 'the service URL (PAYMENTS_BASE_URL or --base-url)',
  ].filter(Boolean);
  if (missing.length > 0) throw new CliError(`missing ${missing.join(' and ')}.`, EXIT.usage);
  try {
    return new PaymentsClient({ apiKey, baseUrl });
  } catch (error) {
    if (error instanceof PaymentsError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
}
