/**
 * The dashboard's history of API requests: the last {@link REQUEST_HISTORY} requests the mock
 * answered (older ones drop out, so a mock left running for days keeps a bounded memory), each with
 * its method, path, status, `Idempotency-Key`, whether it was a replay, the refusal's body, the
 * whole request and answer as JSON, and a copy-as-curl line. The API key is never kept: the
 * `Authorization` header is redacted, and the curl line reads the key from the shell's variable.
 */
import { redactDeep, redactHeaders } from '../../internal/redaction.js';
import { shellWord } from '../shell-word.js';

/** How many requests the history keeps. */
export const REQUEST_HISTORY = 500;

/** Bodies longer than this (in characters) are summarised instead of kept. */
const MAX_BODY_CHARS = 64 * 1024;

/** One request in the history, as the page receives it. */
export interface LoggedRequest {
  /** Increasing number, unique for the life of the process. */
  id: number;
  /** When it arrived (wall clock, ISO 8601). */
  at: string;
  method: string;
  /** Path and query. */
  path: string;
  status: number;
  idempotencyKey: string | null;
  /** `true` when the mock answered with the stored answer of an earlier request with the same key. */
  replayed: boolean;
  /** The mode of the key it carried, `null` for no key or one the mock does not know. */
  mode: 'sandbox' | 'live' | null;
  /** The answer's body when the mock refused the request (status ≥ 400). */
  error: unknown;
  durationMs: number;
  request: { headers: Record<string, string>; body: unknown };
  response: { headers: Record<string, string>; body: unknown };
  /** The same request as a curl command; the key is `$PAYMENTS_API_KEY` or `$PAYMENTS_LIVE_API_KEY`. */
  curl: string;
}

/** Which keys the mock has, to name a request's mode and to keep every secret out of the history. */
export interface KnownSecrets {
  sandboxKey: string;
  liveKey: string | undefined;
  webhookSecret: string;
}

/** A ring buffer of the last {@link REQUEST_HISTORY} requests. */
export class RequestLog {
  readonly #entries: LoggedRequest[] = [];
  readonly #secrets: KnownSecrets;
  #next = 1;

  constructor(secrets: KnownSecrets) {
    this.#secrets = secrets;
  }

  /** The history, oldest first. */
  get entries(): readonly LoggedRequest[] {
    return this.#entries;
  }

  /** Adds a request and its answer; `request` and `response` must be unread copies (`clone()`). */
  async record(request: Request, response: Response, startedMs: number): Promise<LoggedRequest> {
    const url = new URL(request.url);
    const [requestText, responseText] = await Promise.all([request.text(), response.text()]);
    const key = /^Bearer\s+(\S+)/i.exec(request.headers.get('authorization') ?? '')?.[1];
    const { sandboxKey, liveKey, webhookSecret } = this.#secrets;
    const mode = key === undefined ? null : key === sandboxKey ? 'sandbox' : key === liveKey ? 'live' : null;
    const secrets = [sandboxKey, webhookSecret, ...(liveKey ? [liveKey] : []), ...(key ? [key] : [])];
    const requestBody = redactDeep(readBody(requestText), secrets);
    const responseBody = redactDeep(readBody(responseText), secrets);
    const idempotencyKey = request.headers.get('idempotency-key');
    const entry: LoggedRequest = {
      id: this.#next++,
      at: new Date(startedMs).toISOString(),
      method: request.method,
      path: `${url.pathname}${url.search}`,
      status: response.status,
      idempotencyKey,
      replayed: response.headers.get('idempotent-replayed') === 'true',
      mode,
      error: response.status >= 400 ? responseBody : null,
      durationMs: Math.max(0, Date.now() - startedMs),
      request: { headers: redactHeaders(request.headers), body: requestBody },
      response: { headers: redactHeaders(response.headers), body: responseBody },
      curl: curlOf(request, url, mode, requestText),
    };
    this.#entries.push(entry);
    if (this.#entries.length > REQUEST_HISTORY) this.#entries.splice(0, this.#entries.length - REQUEST_HISTORY);
    return entry;
  }
}

/** A body as JSON when it parses, else its text; `null` when empty; a note when too long to keep. */
function readBody(text: string): unknown {
  if (text === '') return null;
  if (text.length > MAX_BODY_CHARS) return `(${text.length} characters, not kept)`;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The request as one curl command that a POSIX shell runs, the key read from the variable the mock printed. */
function curlOf(request: Request, url: URL, mode: LoggedRequest['mode'], body: string): string {
  const variable = mode === 'live' ? 'PAYMENTS_LIVE_API_KEY' : 'PAYMENTS_API_KEY';
  const parts = ['curl', '-X', request.method, shellWord(url.href), '-H', `"Authorization: Bearer $${variable}"`];
  for (const name of ['content-type', 'idempotency-key', 'accept']) {
    const value = request.headers.get(name);
    if (value !== null) parts.push('-H', shellWord(`${headerName(name)}: ${value}`));
  }
  if (body !== '' && body.length <= MAX_BODY_CHARS) parts.push('--data-raw', shellWord(body));
  return parts.join(' ');
}

function headerName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => `${dash}${letter.toUpperCase()}`);
}
