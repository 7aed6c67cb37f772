/**
 * `payments-sdk trigger <event>`: one signed webhook delivery with realistic data, sent to a local
 * endpoint the way the service sends it: the endpoint has 10 s to answer 2xx, and only the start of
 * its answer is read. The event comes from the testing kit's model (a real direct charge or payout,
 * moved to the state the event announces): a model of its own, signed with `--secret`, or, with
 * `--base-url`, a running `payments-sdk mock`'s, so the object exists there and the endpoint can
 * read it back. `--replay FILE` resends a captured delivery as it is, or altered (`--tamper`).
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { jsonSyntaxReason } from '../internal/json.js';
import { isLoopback } from '../testing/delivery.js';
import { MockServiceError } from '../testing/mock-errors.js';
import { createMockService } from '../testing/mock-service.js';
import { CliError, describeError, EXIT } from './exit-codes.js';
import type { GlobalOptions } from './global-options.js';
import { MOCK_EVENTS_PATH } from './mock-events.js';
import { fileOutput, printJson } from './output.js';
import { makeEvent, TRIGGER_EVENTS } from './trigger-events.js';

export { TRIGGER_EVENTS } from './trigger-events.js';

/** How long the endpoint has to answer, as the service gives it: past this the delivery failed. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How much of the endpoint's answer is read; the rest is never downloaded. */
export const ANSWER_BYTES_CAP = 64 * 1024;
/** What `--tamper` alters in a replayed delivery. */
const TAMPERS = ['body', 'signature', 'event'] as const;
type Tamper = (typeof TAMPERS)[number];

/** A delivery as sent on the wire and as `--save` writes it: the headers and the raw body. */
interface Capture {
  headers: Record<string, string>;
  body: string;
}

interface TriggerOptions {
  forwardTo: string;
  secret?: string;
  baseUrl?: string;
  apiKey?: string;
  save?: string;
  replay?: string;
  tamper?: string;
}

/** Registers `trigger` on the program. */
export function registerTrigger(program: Command): void {
  program
    .command('trigger')
    .description('send one signed webhook delivery with realistic data to a local endpoint')
    .argument('[event]', `event type: ${TRIGGER_EVENTS.join(', ')}`)
    .requiredOption('--forward-to <url>', 'your webhook endpoint (127.0.0.1, localhost or [::1])')
    .option('--secret <whsec>', 'signing secret (default: PAYMENTS_WEBHOOK_SECRET); not used with --base-url or --replay')
    .option('--base-url <url>', "a running `payments-sdk mock`: the event's payment or payout is made there, signed with its secret")
    .option('--api-key <key>', "with --base-url: one of the mock's keys (default: PAYMENTS_API_KEY)")
    .option('--save <file.json>', 'also write the delivery sent ({ headers, body }) to this file, for --replay')
    .option('--replay <file.json>', 'resend a captured delivery ({ headers, body }) instead of making an event')
    .option('--tamper <what>', `with --replay: alter the ${TAMPERS.join(', ')} (the signature stays the captured one)`)
    .addHelpText(
      'after',
      `
The endpoint has 10 s to answer, as with the service; only the first 64 KB of its answer are read.
Exits 0 when the endpoint answers 2xx, 1 when it answers otherwise or not within 10 s, 4 when it
cannot be reached. With --tamper the test is reversed: 0 when the endpoint refuses the altered
delivery (4xx), 1 when it accepts it.

  trigger payment.succeeded --forward-to URL --base-url http://127.0.0.1:4010   (against a running mock)
  trigger payment.succeeded --forward-to URL --save delivery.json
  trigger --replay delivery.json --forward-to URL                  (a duplicate)
  trigger --replay delivery.json --forward-to URL --tamper body    (a forgery)`,
    )
    .action(async (event: string | undefined, options: TriggerOptions, command: Command) => {
      await runTrigger(event, options, command.optsWithGlobals<GlobalOptions>());
    });
}

/** A URL on the loopback interface, or a usage error naming `flag`. */
function loopbackUrl(raw: string, flag: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`${flag} must be a URL such as http://127.0.0.1:3000/webhooks, got ${JSON.stringify(raw)}.`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !isLoopback(url.hostname)) {
    throw new CliError(`${flag} must be an http(s) URL on 127.0.0.1, localhost or [::1], got ${url.protocol}//${url.host}.`);
  }
  return url;
}

/** Reads a capture file: a JSON object with `headers` (names to strings) and `body` (the raw body, a string). */
async function readCapture(path: string): Promise<Capture> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${describeError(error)}`, EXIT.invalidInput);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${path} is not JSON: ${jsonSyntaxReason(error)}`, EXIT.invalidInput);
  }
  const capture = parsed as Partial<Capture> | null;
  const problems: string[] = [];
  if (typeof capture?.body !== 'string') problems.push('"body" must be the raw body, as a string');
  const headers = capture?.headers;
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) problems.push('"headers" must be an object');
  else
    for (const [name, value] of Object.entries(headers))
      if (typeof value !== 'string') problems.push(`header ${JSON.stringify(name)} must be a string`);
  if (problems.length > 0)
    throw new CliError(`${path} is not a captured delivery ({ "headers": {…}, "body": "…" }): ${problems.join('; ')}.`, EXIT.invalidInput);
  return capture as Capture;
}

/** A copy of `capture` with one thing altered; the signature stays the captured one unless it is what is altered. */
function tampered(capture: Capture, what: Tamper): Capture {
  const headers = new Headers(capture.headers);
  if (what === 'signature') {
    const signature = headers.get('x-service-signature') ?? '';
    const last = signature.at(-1) ?? '0';
    headers.set('x-service-signature', `${signature.slice(0, -1)}${last === '0' ? '1' : '0'}`);
    return { headers: Object.fromEntries(headers), body: capture.body };
  }
  if (what === 'event') {
    const type = headers.get('x-service-event') ?? '';
    headers.set('x-service-event', type === 'payment.failed' ? 'payment.succeeded' : 'payment.failed');
    return { headers: Object.fromEntries(headers), body: capture.body };
  }
  // The body: an amount multiplied by 100, or a field added when there is none; still valid JSON.
  let body = `${capture.body} `;
  try {
    const event = JSON.parse(capture.body) as { data?: Record<string, unknown> };
    const data = event.data ?? {};
    const field = ['gross_amount', 'amount'].find((name) => typeof data[name] === 'number');
    if (field) data[field] = (data[field] as number) * 100;
    else data.tampered = true;
    body = JSON.stringify({ ...event, data });
  } catch {
    // Not JSON: one more byte is enough to break the signature.
  }
  return { headers: Object.fromEntries(headers), body };
}

/** The endpoint's answer: its status, and the start of its body (at most {@link ANSWER_BYTES_CAP} bytes). */
interface Answer {
  status: number;
  statusText: string;
  ok: boolean;
  body: string;
  truncated: boolean;
  ms: number;
}

/**
 * POSTs a delivery to `url` and reads the answer within {@link DELIVERY_TIMEOUT_MS}, as the service
 * does: an answer later than that, body included, is a failure. Redirects are not followed.
 */
async function send(capture: Capture, url: URL): Promise<Answer> {
  const started = Date.now();
  const signal = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
  const late = () =>
    new CliError(
      `${url.href} did not answer within ${DELIVERY_TIMEOUT_MS / 1000} s: the service counts such a delivery as failed and sends it again later. Answer first, then do the slow work.`,
      EXIT.failed,
    );
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers: capture.headers, body: capture.body, redirect: 'manual', signal });
  } catch (error) {
    if (signal.aborted) throw late();
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    throw new CliError(`could not reach ${url.href}${cause}`, EXIT.service);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  const reader = response.body?.getReader();
  try {
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
      if (size >= ANSWER_BYTES_CAP) {
        truncated = true;
        await reader.cancel();
        break;
      }
    }
  } catch (error) {
    if (signal.aborted) throw late();
    throw new CliError(`${url.href} broke off its answer: ${describeError(error)}`, EXIT.failed);
  }
  const bytes = Buffer.concat(chunks).subarray(0, ANSWER_BYTES_CAP);
  return {
    status: response.status,
    statusText: response.statusText,
    ok: response.ok,
    body: bytes.toString('utf8'),
    truncated,
    ms: Date.now() - started,
  };
}

/** Asks a running mock to make the event's object and sign its delivery. */
async function fromRunningMock(event: string, baseUrl: URL, apiKey: string | undefined): Promise<Capture> {
  if (!apiKey) throw new CliError("missing the mock's API key: set PAYMENTS_API_KEY (as the mock printed it) or pass --api-key.");
  const url = new URL(MOCK_EVENTS_PATH, baseUrl);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: event }),
      redirect: 'manual',
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    throw new CliError(`could not reach the mock at ${baseUrl.origin}${cause}`, EXIT.service);
  }
  const answer = (await response.json().catch(() => ({}))) as Partial<Capture> & { message?: string };
  if (response.status === 404)
    throw new CliError(`${baseUrl.origin} is not a running \`payments-sdk mock\` (no ${MOCK_EVENTS_PATH}).`, EXIT.service);
  if (!response.ok || typeof answer.body !== 'string' || typeof answer.headers !== 'object')
    throw new CliError(`the mock refused to make ${event}: ${answer.message ?? `HTTP ${response.status}`}`, EXIT.service);
  return { headers: answer.headers as Record<string, string>, body: answer.body };
}

async function runTrigger(event: string | undefined, options: TriggerOptions, globals: GlobalOptions): Promise<void> {
  const target = loopbackUrl(options.forwardTo, '--forward-to');
  const problems: string[] = [];
  if (options.replay === undefined && event === undefined)
    problems.push(`name an event (${TRIGGER_EVENTS.join(', ')}) or give --replay FILE`);
  if (options.replay !== undefined && event !== undefined) problems.push('give an event or --replay FILE, not both');
  if (event !== undefined && !TRIGGER_EVENTS.includes(event))
    problems.push(`unknown event ${JSON.stringify(event)}: choose one of ${TRIGGER_EVENTS.join(', ')}`);
  if (options.tamper !== undefined && !TAMPERS.includes(options.tamper as Tamper))
    problems.push(`--tamper must be one of ${TAMPERS.join(', ')}, got ${JSON.stringify(options.tamper)}`);
  if (options.tamper !== undefined && options.replay === undefined)
    problems.push('--tamper alters a captured delivery: use it with --replay FILE');
  if (options.baseUrl !== undefined && options.replay !== undefined) problems.push('--base-url makes a new event: not with --replay');
  if (problems.length > 0) throw new CliError(`${problems.join('; ')}.`);

  let capture: Capture;
  if (options.replay !== undefined) {
    capture = await readCapture(options.replay);
    if (options.tamper) capture = tampered(capture, options.tamper as Tamper);
  } else if (options.baseUrl !== undefined) {
    const baseUrl = loopbackUrl(options.baseUrl, '--base-url');
    capture = await fromRunningMock(event as string, baseUrl, options.apiKey ?? process.env.PAYMENTS_API_KEY);
  } else {
    const secret = options.secret ?? process.env.PAYMENTS_WEBHOOK_SECRET;
    if (!secret) throw new CliError('missing the webhook signing secret: set PAYMENTS_WEBHOOK_SECRET or pass --secret.');
    // The kit's model makes the data and signs it; nothing is stored, and the mock's own keys stay in it.
    const mock = createMockService({ webhookSecret: secret, checkPayoutBalance: false });
    try {
      const delivery = await makeEvent(mock, event as string);
      capture = { headers: { ...delivery.headers }, body: delivery.body };
    } catch (error) {
      if (error instanceof MockServiceError) throw new CliError(error.message, EXIT.service);
      throw error;
    }
  }
  if (options.save !== undefined) {
    // The capture holds the signature, never the secret; the file appears whole or not at all.
    const out = fileOutput(options.save);
    await out.write(`${JSON.stringify(capture, null, 2)}\n`);
    out.close();
  }

  const answer = await send(capture, target);
  const parsed = (() => {
    try {
      return JSON.parse(capture.body) as { id?: unknown; type?: unknown };
    } catch {
      return {};
    }
  })();
  const type = String(parsed.type ?? new Headers(capture.headers).get('x-service-event') ?? 'delivery');
  const id = String(parsed.id ?? '');
  // With --tamper the endpoint passes when it refuses: a 4xx. Otherwise it passes with a 2xx.
  const refused = answer.status >= 400 && answer.status < 500;
  const passed = options.tamper ? refused : answer.ok;
  if (globals.json) {
    printJson({
      event: type,
      id,
      status: answer.status,
      ok: answer.ok,
      ms: answer.ms,
      body: answer.body,
      truncated: answer.truncated,
      ...(options.replay ? { replayed: options.replay } : {}),
      ...(options.tamper ? { tampered: options.tamper, refused } : {}),
    });
  } else {
    process.stdout.write(`${type} ${id} → ${answer.status}${answer.statusText ? ` ${answer.statusText}` : ''} (${answer.ms} ms)\n`);
    if (answer.body) process.stdout.write(`${answer.body.length > 4000 ? `${answer.body.slice(0, 4000)}…` : answer.body}\n`);
    if (options.tamper)
      process.stdout.write(
        refused
          ? `Refused, as it should be: the endpoint rejects a delivery whose ${options.tamper} was altered.\n`
          : `NOT refused: the endpoint answered ${answer.status} to a delivery whose ${options.tamper} was altered. It must verify the signature of the raw body and answer 400.\n`,
      );
  }
  process.exitCode = passed ? EXIT.ok : EXIT.failed;
}
