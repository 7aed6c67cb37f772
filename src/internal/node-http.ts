/**
 * The exchange on Node.js: `node:http` / `node:https` instead of `fetch` (the retry loop, timeouts and
 * error mapping around it stay those of http.ts, shared by every runtime).
 *
 * Why: on Node, `fetch` is undici's WHATWG layer (streams, a `Request`, an `AbortSignal` followed
 * through a `FinalizationRegistry`) over the same sockets. Measured on this machine, one loopback GET
 * through a bare `http.request` costs 0.72–0.83× of a bare `fetch`, a page of 100 payments about
 * 0.7× (BENCHMARKS.md §1, §2): the difference between meeting and missing issue 7's budgets. stripe-node makes the same
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
  if (typeof g.Bun !== 'undefined' || typeof g.Deno !== 'undefined') return undefined;
  // Node 21+ says "Node.js/<major>"; workerd says "Cloudflare-Workers". Without the global
  // navigator (--no-experimental-global-navigator), process.release names the runtime.
  const agent = g.navigator?.userAgent;
  const isNode = typeof agent === 'string' ? agent.startsWith('Node.js/') : g.process?.release?.name === 'node';
  const load = g.process?.getBuiltinModule;
  if (!isNode || typeof load !== 'function') return undefined;
  return { http: load('node:http'), https: load('node:https'), zlib: load('node:zlib') };
}

/**
 * Node's own `fetch` is a lazy wrapper that loads its bundled undici (Node 22 and 24 alike). Anything
 * else in `globalThis.fetch` (msw, vitest-fetch-mock, `vi.stubGlobal`, an instrumentation wrapper),
 * whenever it was installed, is the program's choice and is used. Were a Node release to change
 * the wrapper, the check fails safe: fetch is used (the runtime smoke test would notice).
 */
function isNodeOwnFetch(candidate: unknown): boolean {
  return typeof candidate === 'function' && Function.prototype.toString.call(candidate).includes("require('internal/deps/undici/undici')");
}

/**
 * Where undici keeps the dispatcher every `fetch` goes through. Node 22's undici (6) uses `.1`;
 * Node 24's (7) puts the same `Agent` at `.1` and `.2`; npm undici 8 writes its own to `.2` and a
 * `Dispatcher1Wrapper` of it to `.1`.
 */
const DISPATCHER_1 = Symbol.for('undici.globalDispatcher.1');
const DISPATCHER_2 = Symbol.for('undici.globalDispatcher.2');

/**
 * `true` while fetch would go through undici's default `Agent`, or through none yet. A `ProxyAgent`,
 * `MockAgent`, `RetryAgent`… set with `setGlobalDispatcher` applies to fetch only, so the program
 * wants fetch. (A plain `Agent` with options of its own is not told apart: the README says to pass
 * `fetch` then.)
 */
function defaultDispatcher(): boolean {
  const name = (dispatcher: unknown) => (dispatcher as { constructor?: { name?: string } } | undefined)?.constructor?.name;
  const first = g[DISPATCHER_1];
  const second = g[DISPATCHER_2];
  const secondOk = second === undefined || name(second) === 'Agent';
  // undici 8 wraps what it sets for the older readers; the wrapper is default when what it wraps is.
  const firstOk = first === undefined || name(first) === 'Agent' || (name(first) === 'Dispatcher1Wrapper' && name(second) === 'Agent');
  return secondOk && firstOk;
}

/**
 * A proxy set through the environment (`NODE_USE_ENV_PROXY`, `--use-env-proxy`): fetch honours it
 * from Node 22.21 / 24.0, `http.request` only from 22.21 / 24.5. Leaving it to fetch is right on
 * every version: where neither honours it, nothing is lost.
 */
function usesEnvProxy(): boolean {
  const env = g.process?.env ?? {};
  const flag = env.NODE_USE_ENV_PROXY;
  if (typeof flag === 'string' && flag !== '' && flag !== '0') return true;
  const argv: unknown[] = [...(g.process?.execArgv ?? []), ...String(env.NODE_OPTIONS ?? '').split(/\s+/)];
  return argv.includes('--use-env-proxy');
}

/** What undici's fetch asks for (brotli only over https), so the Node exchange asks the same, and decodes it. */
const acceptEncoding = (url: string) => (url.startsWith('https:') ? 'br, gzip, deflate' : 'gzip, deflate');

/**
 * The Node exchange, or `undefined` where it does not apply. Checked on every call, because a test or
 * a program may change these after the client was built: node:http is taken only while
 * `globalThis.fetch` is Node's own and undici's global dispatcher is its default.
 */
export function nodeExchanger(): (() => Exchanger | undefined) | undefined {
  const builtins = nodeBuiltins();
  if (!builtins || usesEnvProxy()) return undefined;
  const exchange = exchangeWith(builtins);
  let checked: unknown;
  let own = false;
  return () => {
    const current = g.fetch;
    if (current !== checked) {
      checked = current;
      own = isNodeOwnFetch(current);
    }
    return own && defaultDispatcher() ? exchange : undefined;
  };
}

/** Decodes bodies as fetch's `text()` does: UTF-8, a leading BOM dropped, bad bytes replaced. */
const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

function exchangeWith({ http, https, zlib }: NodeBuiltins): Exchanger {
  return (url, init): Exchange => {
    let request: Http.ClientRequest | undefined;
    const received = new Promise<{ response: Response; text: string }>((resolve, reject) => {
      const headers: Record<string, string> = {};
      init.headers.forEach((value, name) => {
        headers[name] = value;
      });
      headers['accept-encoding'] ??= acceptEncoding(url);
      const body = init.body === undefined ? undefined : utf8Encoder.encode(init.body);
      if (body) headers['content-length'] = String(body.byteLength);
      const fail = (error: unknown) => reject(networkError(error));
      let answered = false;
      request = (url.startsWith('https:') ? https : http).request(url, { method: init.method, headers }, (res) => {
        answered = true;
        res.on('error', fail);
        // A socket closed before the body's end (a reset, a Content-Length never reached) fails the
        // attempt, as undici's "terminated" does: retried with the same Idempotency-Key.
        res.on('close', () => {
          if (!res.complete) fail(new Error('the connection closed before the end of the body'));
        });
        const finish = (text: string) => {
          try {
            resolve({ response: toResponse(res, url), text });
          } catch (error) {
            fail(error);
          }
        };
        const codings = res.headers['content-encoding'];
        if (codings === undefined) {
          // The usual case: decoded as it arrives (UTF-8 kept whole across chunks, bad bytes replaced);
          // no buffer of the whole body to allocate, copy and collect.
          res.setEncoding('utf8');
          let text = '';
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          // fetch's text() drops a leading BOM (an IIS or .NET proxy sends one); so does this.
          res.on('end', () => finish(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
        } else {
          const chunks: Uint8Array[] = [];
          res.on('data', (chunk: Uint8Array) => {
            chunks.push(chunk);
          });
          res.on('end', () => {
            const bytes = Buffer.concat(chunks);
            const decoded = bytes.byteLength === 0 ? Promise.resolve(bytes) : decode(zlib, codings, bytes);
            decoded.then((plain) => finish(utf8.decode(plain)), fail);
          });
        }
      });
      request.on('error', fail);
      // A request that ends without an answer and without an error (a 101 or an upgrade answered to
      // a plain request: Node drops the socket) fails now, not when the attempt's timer fires.
      request.on('close', () => {
        if (!answered) fail(new Error('the connection closed without an answer'));
      });
      request.end(body);
    });
    // Destroying the request frees its socket (a keep-alive socket mid-answer cannot be reused).
    return { received, cancel: () => request?.destroy() };
  };
}

/**
 * The body decoded as fetch decodes it (undici): the `Content-Encoding` list undone from the last
 * coding to the first; a coding it does not know leaves the body as it came. Off the main thread
 * (zlib's callback API), and lenient at the end of the stream, as undici is.
 */
async function decode(zlib: typeof Zlib, header: string, bytes: Uint8Array): Promise<Uint8Array> {
  const codings = header
    .toLowerCase()
    .split(',')
    .map((coding) => coding.trim());
  type Step = (input: Uint8Array, done: (error: Error | null, output: Uint8Array) => void) => void;
  const lenient = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const steps: Step[] = [];
  for (const coding of codings.reverse()) {
    if (coding === 'gzip' || coding === 'x-gzip') steps.push((input, done) => zlib.gunzip(input, lenient, done));
    // "deflate" is zlib-wrapped by the standard, raw by some servers: the first byte tells (as undici does).
    else if (coding === 'deflate')
      steps.push((input, done) =>
        ((input[0] ?? 0) & 0x0f) === 0x08 ? zlib.inflate(input, lenient, done) : zlib.inflateRaw(input, lenient, done),
      );
    else if (coding === 'br') steps.push((input, done) => zlib.brotliDecompress(input, done));
    else return bytes;
  }
  let out = bytes;
  for (const step of steps) {
    const input = out;
    out = await new Promise<Uint8Array>((resolve, reject) => step(input, (error, output) => (error ? reject(error) : resolve(output))));
  }
  return out;
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
  // A constructed Response only holds 200–599, but undici's fetch hands back whatever status came
  // (a firewall's 999): so does this, and the transport maps it as fetch's (an APIError, not retried).
  const inRange = status >= 200 && status <= 599;
  const response = new Response(null, { status: inRange ? status : 599, statusText: res.statusMessage ?? '', headers });
  Object.defineProperty(response, 'url', { value: url });
  if (!inRange) Object.defineProperties(response, { status: { value: status }, ok: { value: false } });
  return response;
}

/**
 * A socket error as fetch reports one: a `TypeError` whose `cause` is the socket's error (with its
 * `code`), which the transport retries and maps to `APIConnectionError`.
 */
function networkError(error: unknown): TypeError {
  if (!(error instanceof Error)) return new TypeError('network error', { cause: error });
  // The cause keeps what diagnoses (message, code, syscall, address, port) and nothing else: Node's
  // parse errors carry `rawPacket`, the answer's raw bytes, where an echoed key would sit unredacted.
  const { code, syscall, address, port } = error as Error & Record<string, unknown>;
  const cause = Object.assign(new Error(error.message), { name: error.name }, defined({ code, syscall, address, port }));
  return new TypeError(error.message, { cause });
}

/** The members whose value is not `undefined`. */
function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
