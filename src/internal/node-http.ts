/**
 * The exchange on Node.js: `node:http` / `node:https` instead of `fetch` (the retry loop, timeouts and
 * error mapping around it stay those of http.ts, shared by every runtime).
 *
 * Why: on Node, `fetch` is undici's WHATWG layer (streams, a `Request`, an `AbortSignal` followed
 * through a `FinalizationRegistry`) over the same sockets. Measured on this machine, one loopback GET
 * costs 0.78× of a raw `fetch` through `http.request`, a page of 100 payments 0.73× (BENCHMARKS.md
 * §1): the difference between meeting and missing issue 7's budgets. stripe-node makes the same
 * choice (its `NodeHttpClient`, `fetch` elsewhere).
 *
 * The modules come from `process.getBuiltinModule`, not an `import`: the bundle stays one file for
 * every runtime, and an edge bundler sees no `node:` import (API.md "Package").
 */
import type * as Http from 'node:http';
import type * as Zlib from 'node:zlib';
import type { Exchange, Exchanger } from './http.js';

// biome-ignore lint/suspicious/noExplicitAny: feature detection on globals that have no types here.
const g = globalThis as any;

/**
 * The global `fetch` as it was when the SDK loaded. A program (or a test: msw, `vi.stubGlobal`) that
 * replaces it later wants its replacement used, so the Node exchange is only taken while this one is
 * still in place.
 */
const fetchAtLoad: unknown = g.fetch;

/** The builtins the exchange needs. */
interface NodeBuiltins {
  http: typeof Http;
  https: typeof Http;
  zlib: typeof Zlib;
}

/**
 * `node:http`, `node:https` and `node:zlib` on Node.js itself; `undefined` on Bun, Deno, workers (whose
 * Node compatibility layers run on their own `fetch` anyway) and on a Node without
 * `process.getBuiltinModule` (before 22.3).
 */
function nodeBuiltins(): NodeBuiltins | undefined {
  // Node 21+ says "Node.js/<major>"; Bun, Deno and workerd say their own names.
  const isNode = typeof g.navigator?.userAgent === 'string' && g.navigator.userAgent.startsWith('Node.js/');
  const load = g.process?.getBuiltinModule;
  if (!isNode || typeof load !== 'function') return undefined;
  return { http: load('node:http'), https: load('node:https'), zlib: load('node:zlib') };
}

/** What fetch would send: undici asks for compressed bodies, so the Node exchange does too, and decodes them. */
const ACCEPT_ENCODING = 'gzip, deflate';

/**
 * The Node exchange, or `undefined` where it does not apply (not Node, or `globalThis.fetch` replaced
 * since the SDK loaded: checked on every call, so a replacement made after the client was built is used).
 */
export function nodeExchanger(): (() => Exchanger | undefined) | undefined {
  const builtins = nodeBuiltins();
  if (!builtins) return undefined;
  const exchange = exchangeWith(builtins);
  return () => (g.fetch === fetchAtLoad ? exchange : undefined);
}

function exchangeWith({ http, https, zlib }: NodeBuiltins): Exchanger {
  return (url, init): Exchange => {
    let request: Http.ClientRequest | undefined;
    const received = new Promise<{ response: Response; text: string }>((resolve, reject) => {
      const headers: Record<string, string> = {};
      init.headers.forEach((value, name) => {
        headers[name] = value;
      });
      headers['accept-encoding'] ??= ACCEPT_ENCODING;
      const body = init.body === undefined ? undefined : new TextEncoder().encode(init.body);
      if (body) headers['content-length'] = String(body.byteLength);
      const fail = (error: unknown) => reject(networkError(error));
      request = (url.startsWith('https:') ? https : http).request(url, { method: init.method, headers }, (res) => {
        res.on('error', fail);
        // A socket closed before the body's end (a reset, a Content-Length never reached) fails the
        // attempt, as undici's "terminated" does: retried with the same Idempotency-Key.
        res.on('close', () => {
          if (!res.complete) fail(new Error('the connection closed before the end of the body'));
        });
        const decoder = decoderFor(zlib, res.headers['content-encoding']);
        const stream = decoder ? res.pipe(decoder) : res;
        decoder?.on('error', fail);
        stream.setEncoding('utf8');
        let text = '';
        stream.on('data', (chunk: string) => {
          text += chunk;
        });
        stream.on('end', () => {
          try {
            resolve({ response: toResponse(res, url), text });
          } catch (error) {
            fail(error);
          }
        });
      });
      request.on('error', fail);
      request.end(body);
    });
    // Destroying the request frees its socket (a keep-alive socket mid-answer cannot be reused).
    return { received, cancel: () => request?.destroy() };
  };
}

/** A decoder for the body's `Content-Encoding`, as fetch would decode it; none for identity or one it does not know. */
function decoderFor(zlib: typeof Zlib, encoding: string | undefined): Zlib.Gunzip | Zlib.Unzip | Zlib.BrotliDecompress | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
    case 'deflate':
      // Unzip reads both gzip and zlib-wrapped deflate from their headers.
      return zlib.createUnzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}

/**
 * The `Response` handed to `.withResponse()`: status and headers as received, its body already
 * read (empty), and the URL it came from, like a fetched one's.
 */
function toResponse(res: Http.IncomingMessage, url: string): Response {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  const status = res.statusCode ?? 0;
  // A Response only holds 200–599; fetch too fails on anything else.
  if (status < 200 || status > 599) throw new Error(`the service answered with status ${status}`);
  const response = new Response(null, { status, statusText: res.statusMessage ?? '', headers });
  Object.defineProperty(response, 'url', { value: url });
  return response;
}

/**
 * A socket error as fetch reports one: a `TypeError` whose `cause` is the socket's error (with its
 * `code`), which the transport retries and maps to `APIConnectionError`.
 */
function networkError(error: unknown): TypeError {
  const message = error instanceof Error ? error.message : 'network error';
  return new TypeError(message, { cause: error });
}
